import { useMemo, useState } from 'react';
import { useAtomValue } from 'jotai';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  inferencePlatformLogsReadPermission,
  PodSummary,
} from '@cv-platform/plugin-inference-platform-common';
import { Box, Grid, Typography } from '@material-ui/core';
import {
  EmptyState,
  Link,
  Progress,
  WarningPanel,
} from '@backstage/core-components';
import { refKey, usePlatformsState } from '../../state';
import { describeError } from '../../api';
import { ConnectionIndicator } from '../ConnectionIndicator';
import { PlatformActions } from '../PlatformActions';
import { BackupsCard } from '../PlatformBackups';
import { CanaryCard } from '../PlatformCanary';
import {
  LinksCard,
  PodLogsDialog,
  RolloutCard,
  VolumesCard,
  YamlCard,
} from '../PlatformWorkloads';
import { ConditionsCard } from './ConditionsCard';
import { EventsCard } from './EventsCard';
import { PodsGrid } from './PodsGrid';
import { QdrantClusterCard } from './QdrantClusterCard';
import { SpecCard } from './SpecCard';
import { StatusCard } from './StatusCard';
import { usePlatformDetail } from './usePlatformDetail';

function BackToList(props: { listPath?: string }) {
  return props.listPath ? (
    <Link to={props.listPath}>Back to all platforms</Link>
  ) : null;
}

/**
 * Everything about one platform. Needs a PlatformsStateProvider that follows
 * this platform: the status comes live from the feed, pods and events from
 * the REST API.
 */
export function PlatformDetailContent(props: {
  namespace: string;
  name: string;
  /** The cluster to address; absent: the backend's default cluster. */
  cluster?: string;
  /** Link target back to the list; an entity tab has none. */
  listPath?: string;
}) {
  const { namespace, name, cluster, listPath } = props;
  const state = usePlatformsState();
  const platformRef = useMemo(
    () => ({ ...(cluster ? { cluster } : {}), namespace, name }),
    [cluster, namespace, name],
  );
  const key = refKey(platformRef);
  const live = useAtomValue(state.platformAtom(key));
  const loaded = useAtomValue(state.loadedAtom);
  const connection = useAtomValue(state.connectionAtom);
  const { detail, error, notFound, loading } = usePlatformDetail(
    platformRef,
    live?.metadata.resourceVersion,
  );
  const logs = usePermission({
    permission: inferencePlatformLogsReadPermission,
    resourceRef: key,
  });
  const [logsOf, setLogsOf] = useState<PodSummary>();
  // Until the feed's snapshot arrives the REST answer is the freshest copy.
  const platform = live ?? (loaded ? undefined : detail?.platform);

  if (!platform) {
    if ((loaded || connection.fatal) && (notFound || !loading)) {
      return (
        <EmptyState
          missing="data"
          title={`No platform ${key}`}
          description={
            connection.fatal
              ? connection.error ?? 'The event feed failed.'
              : `It does not exist (any more): it may have been deleted, or the link has a typo. Check the ${
                  cluster ? 'cluster, ' : ''
                }namespace and name, or pick one from the list.`
          }
          action={<BackToList listPath={listPath} />}
        />
      );
    }
    return <Progress />;
  }

  return (
    <>
      <Box
        display="flex"
        alignItems="center"
        justifyContent="space-between"
        mb={2}
        flexWrap="wrap"
      >
        <Box display="flex" alignItems="center" style={{ gap: 16 }}>
          <ConnectionIndicator />
          <BackToList listPath={listPath} />
        </Box>
        <PlatformActions platform={platform} cluster={cluster} />
      </Box>
      {error && (
        <Box mb={2}>
          <WarningPanel
            severity="warning"
            title="Pods and events may be out of date"
            message={`Refreshing them failed: ${describeError(
              error,
            )}. The page retries every 15 s; the status above stays live.`}
          />
        </Box>
      )}
      {!live && !loaded && (
        <Typography variant="body2" color="textSecondary">
          Waiting for the live feed…
        </Typography>
      )}
      <Grid container spacing={3} alignItems="stretch">
        <Grid item xs={12} md={6}>
          <StatusCard platform={platform} />
        </Grid>
        <Grid item xs={12} md={6}>
          <QdrantClusterCard cluster={platform.status?.qdrantCluster} />
        </Grid>
        <Grid item xs={12}>
          <ConditionsCard conditions={platform.status?.conditions} />
        </Grid>
        <Grid item xs={12}>
          <PodsGrid
            pods={detail?.pods}
            loading={loading}
            onLogs={logs.allowed ? setLogsOf : undefined}
          />
        </Grid>
        <Grid item xs={12} md={7}>
          <RolloutCard workloads={detail?.workloads} />
        </Grid>
        <Grid item xs={12} md={5}>
          <VolumesCard volumes={detail?.volumes} />
        </Grid>
        <Grid item xs={12} md={6}>
          <SpecCard platform={platform} />
        </Grid>
        <Grid item xs={12} md={6}>
          <EventsCard events={detail?.events} loading={loading} />
        </Grid>
        {platform.spec.inference.canary && (
          <Grid item xs={12}>
            <CanaryCard platform={platform} cluster={cluster} />
          </Grid>
        )}
        <Grid item xs={12}>
          <BackupsCard platform={platform} cluster={cluster} />
        </Grid>
        <Grid item xs={12} md={8}>
          <YamlCard platformRef={platformRef} objects={detail?.objects} />
        </Grid>
        <Grid item xs={12} md={4}>
          <LinksCard
            namespace={namespace}
            name={name}
            cluster={detail?.cluster ?? cluster}
          />
        </Grid>
      </Grid>
      {logsOf && (
        <PodLogsDialog
          platformRef={platformRef}
          pod={logsOf}
          onClose={() => setLogsOf(undefined)}
        />
      )}
    </>
  );
}
