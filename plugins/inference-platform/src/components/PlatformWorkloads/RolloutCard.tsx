import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@material-ui/core';
import {
  InfoCard,
  StatusOK,
  StatusRunning,
  StatusWarning,
} from '@backstage/core-components';
import { WorkloadRollout } from '@cv-platform/plugin-inference-platform-common';

const ROLE: Record<WorkloadRollout['role'], string> = {
  qdrant: 'Qdrant',
  inference: 'Inference',
  canary: 'Inference (canary)',
};

function RolloutState(props: { w: WorkloadRollout }) {
  const { w } = props;
  const stalled = w.conditions.find(
    c => c.type === 'Progressing' && c.status === 'False',
  );
  if (stalled)
    return (
      <StatusWarning>
        Stalled: {stalled.message ?? stalled.reason ?? ''}
      </StatusWarning>
    );
  if (w.rolling) return <StatusRunning>Rolling out</StatusRunning>;
  return <StatusOK>Complete</StatusOK>;
}

function revisions(w: WorkloadRollout): string {
  if (w.kind !== 'StatefulSet') return '—';
  if (!w.updateRevision || w.updateRevision === w.currentRevision)
    return w.currentRevision ?? '—';
  const partition =
    w.partition !== undefined ? ` (partition ${w.partition})` : '';
  return `${w.currentRevision ?? '?'} → ${w.updateRevision}${partition}`;
}

/** The platform's StatefulSet and Deployments as `kubectl rollout status` sees them. */
export function RolloutCard(props: { workloads?: WorkloadRollout[] }) {
  const workloads = props.workloads ?? [];
  return (
    <InfoCard title="Rollout">
      {workloads.length === 0 ? (
        <Typography variant="body2" color="textSecondary">
          No workloads yet.
        </Typography>
      ) : (
        <Table size="small" aria-label="Rollout state">
          <TableHead>
            <TableRow>
              <TableCell>Workload</TableCell>
              <TableCell>Desired</TableCell>
              <TableCell>Updated</TableCell>
              <TableCell>Ready</TableCell>
              <TableCell>Available</TableCell>
              <TableCell>Revision</TableCell>
              <TableCell>State</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {workloads.map(w => (
              <TableRow
                key={`${w.kind}/${w.name}`}
                data-testid={`rollout-${w.name}`}
              >
                <TableCell>
                  {ROLE[w.role]}
                  <Typography
                    variant="caption"
                    component="div"
                    color="textSecondary"
                  >
                    {w.kind} {w.name}
                  </Typography>
                </TableCell>
                <TableCell>{w.desired}</TableCell>
                <TableCell>{w.updated}</TableCell>
                <TableCell>{w.ready}</TableCell>
                <TableCell>{w.available ?? '—'}</TableCell>
                <TableCell>{revisions(w)}</TableCell>
                <TableCell>
                  <RolloutState w={w} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </InfoCard>
  );
}
