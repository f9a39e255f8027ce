import { ReactNode, useCallback, useState } from 'react';
import {
  Box,
  Button,
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
  StatusRunning,
  StructuredMetadataTable,
} from '@backstage/core-components';
import { alertApiRef, useApi } from '@backstage/core-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  CanaryStatus,
  InferencePlatformV1beta1,
  inferencePlatformUpdatePermission,
  PatchPlatformRequest,
  TrackMetrics,
} from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';
import { platformKey, platformRefOf } from '../../state';
import { ActionDialog } from '../PlatformActions/ActionDialog';
import { useSubmit } from '../PlatformActions/useSubmit';

function CanaryState(props: { state?: CanaryStatus['state'] }) {
  switch (props.state) {
    case 'Serving':
      return <StatusOK>Serving</StatusOK>;
    case 'Failed':
      return <StatusError>Failed</StatusError>;
    case 'Paused':
      return <StatusPending>Paused</StatusPending>;
    case 'Progressing':
      return <StatusRunning>Progressing</StatusRunning>;
    default:
      return <StatusPending>Waiting for the operator</StatusPending>;
  }
}

const percent = (x: number) =>
  `${(x * 100).toFixed(x > 0 && x < 0.01 ? 2 : 1)}%`;

function MetricsRow(props: {
  version: string;
  model: string;
  metrics?: TrackMetrics;
}) {
  const m = props.metrics;
  return (
    <TableRow data-testid={`canary-metrics-${props.version.toLowerCase()}`}>
      <TableCell>{props.version}</TableCell>
      <TableCell>{props.model}</TableCell>
      <TableCell>{m ? m.requestsPerSecond.toFixed(2) : '—'}</TableCell>
      <TableCell>{m ? percent(m.errorRate) : '—'}</TableCell>
      <TableCell>
        {m?.p95LatencyMs !== undefined ? `${m.p95LatencyMs} ms` : '—'}
      </TableCell>
    </TableRow>
  );
}

type Action = 'promote' | 'rollback';

/**
 * A canary model (spec.inference.canary) beside the stable one: the share of
 * requests it receives, its state, both versions' request metrics, and
 * promote / roll back, each one edit of the platform.
 */
export function CanaryCard(props: {
  platform: InferencePlatformV1beta1;
  /** The cluster the page addresses it on; absent: the default cluster. */
  cluster?: string;
}) {
  const { platform, cluster } = props;
  const canary = platform.spec.inference.canary;
  const status = platform.status?.canary;
  const namespace = platform.metadata.namespace!;
  const name = platform.metadata.name!;
  const api = useApi(inferencePlatformApiRef);
  const alertApi = useApi(alertApiRef);
  const update = usePermission({
    permission: inferencePlatformUpdatePermission,
    resourceRef: platformKey(platform, cluster),
  });
  const [open, setOpen] = useState<Action>();
  const close = useCallback(() => setOpen(undefined), []);
  const action = useCallback(() => {
    // Promote: the canary's model and collection become the stable ones.
    const patch: PatchPlatformRequest =
      open === 'promote'
        ? {
            inference: {
              model: canary ? { url: canary.model.url } : undefined,
              collection: canary?.collection,
              canary: null,
            },
          }
        : { inference: { canary: null } };
    return api.patchPlatform(platformRefOf(platform, cluster), patch);
  }, [api, platform, cluster, open, canary]);
  const done = useCallback(() => {
    alertApi.post({
      message:
        open === 'promote'
          ? `${namespace}/${name}: canary promoted; the servers roll onto ${canary?.model.url}.`
          : `${namespace}/${name}: canary rolled back; the stable model serves every request.`,
      severity: 'success',
      display: 'transient',
    });
    setOpen(undefined);
  }, [alertApi, open, namespace, name, canary]);
  const { busy, error, submit } = useSubmit(action, done);

  if (!canary) return null;
  const metadata: Record<string, ReactNode> = {
    Model: canary.model.url,
    Collection: canary.collection,
    Weight: `${canary.weight}%`,
    'Receives now': status
      ? `${status.effectiveWeight}% of requests (${status.readyReplicas}/${status.replicas} canary servers ready)`
      : '—',
    State: <CanaryState state={status?.state} />,
  };
  if (status?.message) metadata.Message = status.message;
  const m = status?.metrics;
  const stableModel = platform.spec.inference.model.url;
  return (
    <InfoCard
      title="Canary"
      subheader="A second model version serving a share of the requests"
    >
      <StructuredMetadataTable metadata={metadata} />
      <Box mt={2}>
        <Typography variant="subtitle1" gutterBottom>
          Requests per version
          {m ? ` (last ${m.windowSeconds} s)` : ''}
        </Typography>
        <Table size="small" aria-label="Requests per version">
          <TableHead>
            <TableRow>
              <TableCell>Version</TableCell>
              <TableCell>Model</TableCell>
              <TableCell>Requests/s</TableCell>
              <TableCell>Errors</TableCell>
              <TableCell>p95 latency</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            <MetricsRow
              version="Stable"
              model={stableModel}
              metrics={m?.stable}
            />
            <MetricsRow
              version="Canary"
              model={canary.model.url}
              metrics={m?.canary}
            />
          </TableBody>
        </Table>
        {!m && (
          <Typography variant="body2" color="textSecondary">
            The operator reads the servers' metrics every 30 s; the first window
            shows after two readings.
          </Typography>
        )}
      </Box>
      {update.allowed && (
        <Box mt={2} display="flex" style={{ gap: 8 }}>
          <Button
            variant="outlined"
            color="primary"
            onClick={() => setOpen('promote')}
            disabled={Boolean(platform.metadata.deletionTimestamp)}
          >
            Promote
          </Button>
          <Button
            variant="outlined"
            color="secondary"
            onClick={() => setOpen('rollback')}
            disabled={Boolean(platform.metadata.deletionTimestamp)}
          >
            Roll back
          </Button>
        </Box>
      )}
      <ActionDialog
        open={Boolean(open)}
        onClose={close}
        id="canary"
        title={
          open === 'promote'
            ? `Promote the canary of ${name}`
            : `Roll back the canary of ${name}`
        }
        description={
          open === 'promote'
            ? `${canary.model.url} becomes the stable model and ${canary.collection} its collection: the servers roll onto them and the canary's own objects are removed.`
            : `The canary's servers are removed and ${stableModel} serves every request. Its collection ${canary.collection} stays in Qdrant.`
        }
        busy={busy}
        error={error}
        confirmLabel={open === 'promote' ? 'Promote' : 'Roll back'}
        busyLabel={open === 'promote' ? 'Promoting…' : 'Rolling back…'}
        confirmColor={open === 'promote' ? 'primary' : 'secondary'}
        confirmDisabled={false}
        onConfirm={submit}
      >
        {null}
      </ActionDialog>
    </InfoCard>
  );
}
