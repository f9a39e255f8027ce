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
  StatusError,
  StatusOK,
  StatusPending,
} from '@backstage/core-components';
import { VolumeSummary } from '@cv-platform/plugin-inference-platform-common';

function Phase(props: { phase: string }) {
  if (props.phase === 'Bound') return <StatusOK>Bound</StatusOK>;
  if (props.phase === 'Lost') return <StatusError>Lost</StatusError>;
  return <StatusPending>{props.phase}</StatusPending>;
}

function size(v: VolumeSummary): string {
  if (v.capacity && v.requested && v.capacity !== v.requested)
    return `${v.capacity} (asked ${v.requested})`;
  return v.capacity ?? v.requested ?? '—';
}

/** The platform's PersistentVolumeClaims: Qdrant's storage and a model volume. */
export function VolumesCard(props: { volumes?: VolumeSummary[] }) {
  const volumes = props.volumes ?? [];
  return (
    <InfoCard title="Volumes">
      {volumes.length === 0 ? (
        <Typography variant="body2" color="textSecondary">
          No PersistentVolumeClaims.
        </Typography>
      ) : (
        <Table size="small" aria-label="Volumes">
          <TableHead>
            <TableRow>
              <TableCell>Claim</TableCell>
              <TableCell>Phase</TableCell>
              <TableCell>Size</TableCell>
              <TableCell>Storage class</TableCell>
              <TableCell>Access</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {volumes.map(v => (
              <TableRow key={v.name} data-testid={`volume-${v.name}`}>
                <TableCell>
                  {v.name}
                  {v.conditions.map(c => (
                    <Typography
                      key={c.type}
                      variant="caption"
                      component="div"
                      color="textSecondary"
                    >
                      {c.type}
                      {c.message ? `: ${c.message}` : ''}
                    </Typography>
                  ))}
                </TableCell>
                <TableCell>
                  <Phase phase={v.phase} />
                </TableCell>
                <TableCell>{size(v)}</TableCell>
                <TableCell>{v.storageClassName ?? 'default'}</TableCell>
                <TableCell>{v.accessModes.join(', ')}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </InfoCard>
  );
}
