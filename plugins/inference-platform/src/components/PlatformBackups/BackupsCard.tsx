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
  CodeSnippet,
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
  BACKUP_REQUESTED_ANNOTATION,
  BackupRecord,
  ConditionType,
  InferencePlatformV1beta1,
  inferencePlatformBackupCreatePermission,
  InferencePlatformRestore,
  inferencePlatformRestoreCreatePermission,
} from '@cv-platform/plugin-inference-platform-common';
import { describeError, inferencePlatformApiRef } from '../../api';
import { platformKey, platformRefOf } from '../../state';
import { formatBytes } from './format';
import { RestoreDialog } from './RestoreDialog';
import { Timestamp } from './Timestamp';
import { useRestores } from './useRestores';

export const BACKUP_YAML_HINT = `spec:
  qdrant:
    backup:
      schedule: "0 3 * * *"        # cron, UTC
      retention: { count: 7 }      # optional; or maxAge: 30d
      s3:
        bucket: my-qdrant-backups
        prefix: qdrant             # optional
        endpoint: https://minio.example.com   # optional; AWS S3 when empty
        credentialsSecretRef: { name: backup-s3-credentials }  # optional`;

function ResultStatus(props: { result: BackupRecord['result'] }) {
  return props.result === 'Succeeded' ? (
    <StatusOK>Succeeded</StatusOK>
  ) : (
    <StatusError>Failed</StatusError>
  );
}

function RestorePhase(props: { restore: InferencePlatformRestore }) {
  const phase = props.restore.status?.phase;
  switch (phase) {
    case 'Succeeded':
      return <StatusOK>Succeeded</StatusOK>;
    case 'Failed':
      return <StatusError>Failed</StatusError>;
    case 'Running':
      return <StatusRunning>Running</StatusRunning>;
    default:
      return <StatusPending>{phase ?? 'Pending'}</StatusPending>;
  }
}

function collectionsText(record: BackupRecord): string {
  const collections = record.collections ?? [];
  if (collections.length === 0) return '—';
  return collections
    .map(c =>
      c.points === undefined
        ? c.name
        : `${c.name} (${c.points.toLocaleString('en-US')} points)`,
    )
    .join(', ');
}

function HistoryTable(props: {
  history: BackupRecord[];
  canRestore: boolean;
  onRestore(record: BackupRecord): void;
}) {
  if (props.history.length === 0) {
    return (
      <Typography variant="body2" color="textSecondary">
        No backups yet.
      </Typography>
    );
  }
  return (
    <Table size="small" aria-label="Backup history">
      <TableHead>
        <TableRow>
          <TableCell>Started</TableCell>
          <TableCell>Trigger</TableCell>
          <TableCell>Result</TableCell>
          <TableCell>Size</TableCell>
          <TableCell>Collections</TableCell>
          <TableCell>Message</TableCell>
          {props.canRestore && <TableCell />}
        </TableRow>
      </TableHead>
      <TableBody>
        {props.history.map(b => (
          <TableRow key={b.id} data-testid={`backup-${b.id}`}>
            <TableCell>
              <Timestamp time={b.startTime} />
            </TableCell>
            <TableCell>{b.trigger}</TableCell>
            <TableCell>
              <ResultStatus result={b.result} />
            </TableCell>
            <TableCell>{formatBytes(b.sizeBytes)}</TableCell>
            <TableCell>{collectionsText(b)}</TableCell>
            <TableCell>{b.message ?? ''}</TableCell>
            {props.canRestore && (
              <TableCell>
                {b.result === 'Succeeded' && (
                  <Button
                    size="small"
                    color="secondary"
                    aria-label={`Restore backup ${b.id}`}
                    onClick={() => props.onRestore(b)}
                  >
                    Restore
                  </Button>
                )}
              </TableCell>
            )}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function RestoresTable(props: {
  restores?: InferencePlatformRestore[];
  error?: Error;
}) {
  let body: ReactNode;
  if (!props.restores) {
    body = (
      <Typography variant="body2" color="textSecondary">
        {props.error
          ? `Could not load restores: ${describeError(props.error)}`
          : 'Loading restores…'}
      </Typography>
    );
  } else if (props.restores.length === 0) {
    body = (
      <Typography variant="body2" color="textSecondary">
        No restores of this platform.
      </Typography>
    );
  } else {
    body = (
      <Table size="small" aria-label="Restores">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Backup</TableCell>
            <TableCell>Phase</TableCell>
            <TableCell>Message</TableCell>
            <TableCell>Started</TableCell>
            <TableCell>Completed</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {props.restores.map(r => (
            <TableRow key={r.metadata.name} data-testid="restore-row">
              <TableCell>{r.metadata.name}</TableCell>
              <TableCell>
                {r.spec.backupId}
                {r.spec.collections?.length
                  ? ` (${r.spec.collections.join(', ')})`
                  : ''}
              </TableCell>
              <TableCell>
                <RestorePhase restore={r} />
              </TableCell>
              <TableCell>{r.status?.message ?? ''}</TableCell>
              <TableCell>
                <Timestamp time={r.status?.startTime} />
              </TableCell>
              <TableCell>
                <Timestamp time={r.status?.completionTime} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    );
  }
  return (
    <Box mt={3}>
      <Typography variant="subtitle1" gutterBottom>
        Restores
      </Typography>
      {body}
    </Box>
  );
}

/**
 * Backups of the platform's Qdrant (spec.backup, status.backup):
 * when the last and next ones are, the history, "Back up now" and a restore
 * from any successful backup, each offered only with its permission.
 */
export function BackupsCard(props: {
  platform: InferencePlatformV1beta1;
  /** The cluster the page addresses it on; absent: the default cluster. */
  cluster?: string;
}) {
  const { platform, cluster } = props;
  const resourceRef = platformKey(platform, cluster);
  const api = useApi(inferencePlatformApiRef);
  const alertApi = useApi(alertApiRef);
  const backupPermission = usePermission({
    permission: inferencePlatformBackupCreatePermission,
    resourceRef,
  });
  const restorePermission = usePermission({
    permission: inferencePlatformRestoreCreatePermission,
    resourceRef,
  });
  const spec = platform.spec.backup;
  const status = platform.status?.backup ?? {};
  const { restores, error, refresh } = useRestores(
    platformRefOf(platform, cluster),
    {
      enabled: Boolean(spec),
      resourceVersion: platform.metadata.resourceVersion,
    },
  );
  const [requesting, setRequesting] = useState(false);
  const [localRequest, setLocalRequest] = useState<string>();
  const [restoreFrom, setRestoreFrom] = useState<BackupRecord>();

  const annotated =
    platform.metadata.annotations?.[BACKUP_REQUESTED_ANNOTATION];
  // The newer of what the feed shows and what this page just asked for.
  const requested =
    localRequest && (!annotated || localRequest > annotated)
      ? localRequest
      : annotated;
  const waiting = Boolean(requested) && requested !== status.lastRequestHandled;
  const deleting = Boolean(platform.metadata.deletionTimestamp);

  const backUpNow = useCallback(async () => {
    setRequesting(true);
    try {
      const { requestedAt } = await api.requestBackup(
        platformRefOf(platform, cluster),
      );
      setLocalRequest(requestedAt);
      alertApi.post({
        message: `Backup of ${resourceRef} requested; the operator starts it shortly.`,
        severity: 'success',
        display: 'transient',
      });
    } catch (e) {
      alertApi.post({
        message: `Backup of ${resourceRef} not requested: ${describeError(e)}`,
        severity: 'error',
      });
    } finally {
      setRequesting(false);
    }
  }, [api, alertApi, platform, cluster, resourceRef]);

  const onRestoreCreated = useCallback(
    (restore: InferencePlatformRestore) => {
      alertApi.post({
        message: `Restore ${restore.metadata.name} of ${resourceRef} from backup ${restore.spec.backupId} created; the operator runs it next.`,
        severity: 'success',
        display: 'transient',
      });
      refresh();
    },
    [alertApi, resourceRef, refresh],
  );
  const closeRestore = useCallback(() => setRestoreFrom(undefined), []);

  if (!spec) {
    return (
      <InfoCard title="Backups">
        <Typography
          variant="body2"
          paragraph
          data-testid="backups-unconfigured"
        >
          Backups are not configured for this platform. Add{' '}
          <code>spec.backup</code> to have the operator snapshot every Qdrant
          collection on a schedule and upload the snapshots to S3:
        </Typography>
        <CodeSnippet language="yaml" text={BACKUP_YAML_HINT} />
      </InfoCard>
    );
  }

  const failed = platform.status?.conditions?.find(
    c => c.type === ConditionType.BackupSucceeded && c.status === 'False',
  );
  let next: ReactNode = (
    <Timestamp time={status.nextScheduleTime} fallback="not computed yet" />
  );
  if (spec.suspend) next = 'none: scheduled backups are suspended';
  let running: ReactNode = 'none';
  if (status.running) {
    running = (
      <StatusRunning>
        {status.running.id} ({status.running.trigger}), started{' '}
        <Timestamp time={status.running.startTime} />
      </StatusRunning>
    );
  } else if (waiting) {
    running = (
      <StatusPending>
        Requested <Timestamp time={requested} />, waiting for the operator
      </StatusPending>
    );
  }
  const metadata: Record<string, ReactNode> = {
    Schedule: `${spec.schedule} (UTC)${spec.suspend ? ', suspended' : ''}`,
    Bucket: `s3://${spec.s3.bucket}${
      spec.s3.prefix ? `/${spec.s3.prefix}` : ''
    }`,
    'Last successful backup': (
      <Timestamp time={status.lastSuccessfulTime} fallback="never" />
    ),
    'Next scheduled backup': next,
    'Backup in progress': running,
  };
  if (failed) {
    metadata['Last backup'] = (
      <StatusError>
        {failed.reason}: {failed.message}
      </StatusError>
    );
  }

  const canBackUp = !backupPermission.loading && backupPermission.allowed;
  const canRestore = !restorePermission.loading && restorePermission.allowed;
  return (
    <InfoCard title="Backups">
      <Box
        display="flex"
        justifyContent="space-between"
        alignItems="flex-start"
        flexWrap="wrap"
        style={{ gap: 16 }}
      >
        <StructuredMetadataTable dense metadata={metadata} />
        {canBackUp && (
          <Button
            variant="outlined"
            color="primary"
            disabled={
              requesting || waiting || deleting || Boolean(status.running)
            }
            onClick={backUpNow}
          >
            {requesting ? 'Requesting…' : 'Back up now'}
          </Button>
        )}
      </Box>
      <Box mt={2}>
        <Typography variant="subtitle1" gutterBottom>
          History
        </Typography>
        <HistoryTable
          history={status.history ?? []}
          canRestore={canRestore && !deleting}
          onRestore={setRestoreFrom}
        />
      </Box>
      <RestoresTable restores={restores} error={error} />
      {/* Mounted only while open, so each opening starts empty. */}
      {restoreFrom && (
        <RestoreDialog
          platform={platform}
          cluster={cluster}
          backup={restoreFrom}
          open
          onClose={closeRestore}
          onCreated={onRestoreCreated}
        />
      )}
    </InfoCard>
  );
}
