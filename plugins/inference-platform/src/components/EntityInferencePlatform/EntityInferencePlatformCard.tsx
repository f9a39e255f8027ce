import { useAtomValue } from 'jotai';
import { Box, Grid, Tooltip, Typography } from '@material-ui/core';
import { EmptyState, InfoCard, Progress } from '@backstage/core-components';
import { useRouteRef } from '@backstage/core-plugin-api';
import {
  MissingAnnotationEmptyState,
  useEntity,
} from '@backstage/plugin-catalog-react';
import {
  ENTITY_PLATFORM_ANNOTATION,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';
import { platformRouteRef } from '../../routes';
import {
  inferenceReadiness,
  PlatformsStateProvider,
  qdrantReadiness,
  refKey,
  usePlatformsState,
} from '../../state';
import { ConnectionIndicator } from '../ConnectionIndicator';
import { PhaseChip } from '../PhaseChip';
import { ReadinessBar } from '../ReadinessBar';
import { platformOfEntity } from './platformAnnotation';

function CardBody(props: { platformRef: PlatformRef }) {
  const key = refKey(props.platformRef);
  const state = usePlatformsState();
  const platform = useAtomValue(state.platformAtom(key));
  const loaded = useAtomValue(state.loadedAtom);
  const connection = useAtomValue(state.connectionAtom);
  if (!platform) {
    if (connection.fatal) {
      return <Typography color="error">{connection.error}</Typography>;
    }
    if (!loaded) return <Progress />;
    return (
      <EmptyState
        missing="data"
        title={`No platform ${key}`}
        description={`This entity's ${ENTITY_PLATFORM_ANNOTATION} annotation names a platform the cluster does not have. Create it, or correct the annotation in catalog-info.yaml.`}
      />
    );
  }
  return (
    <Grid container spacing={2}>
      <Grid item xs={12}>
        <Box display="flex" alignItems="center" justifyContent="space-between">
          <PhaseChip
            phase={platform.status?.phase}
            deleting={Boolean(platform.metadata.deletionTimestamp)}
          />
          <ConnectionIndicator />
        </Box>
        {platform.status?.message && (
          <Typography variant="body2" color="textSecondary">
            {platform.status.message}
          </Typography>
        )}
      </Grid>
      <Grid item xs={6}>
        <Typography variant="subtitle2">
          Qdrant {platform.spec.qdrant.version}
        </Typography>
        <ReadinessBar label="qdrant" readiness={qdrantReadiness(platform)} />
      </Grid>
      <Grid item xs={6}>
        <Typography variant="subtitle2">Inference</Typography>
        <ReadinessBar
          label="inference"
          readiness={inferenceReadiness(platform)}
        />
      </Grid>
      <Grid item xs={12}>
        <Tooltip title={platform.spec.inference.model.url}>
          <Typography variant="body2" noWrap>
            Model: {platform.spec.inference.model.url}
          </Typography>
        </Tooltip>
      </Grid>
    </Grid>
  );
}

/**
 * Live summary of the platform an entity names in its
 * `cv.platform.tech/inference-platform` annotation.
 *
 * @public
 */
export function EntityInferencePlatformCard() {
  const { entity } = useEntity();
  const ref = platformOfEntity(entity);
  const platformPath = useRouteRef(platformRouteRef);
  if (!ref)
    return (
      <MissingAnnotationEmptyState annotation={ENTITY_PLATFORM_ANNOTATION} />
    );
  const key = refKey(ref);
  // platformPagePath's form, below wherever the app mounts the plugin.
  const link = `${platformPath({ namespace: ref.namespace, name: ref.name })}${
    ref.cluster ? `?cluster=${encodeURIComponent(ref.cluster)}` : ''
  }`;
  return (
    <InfoCard
      title="Inference platform"
      subheader={
        ref.cluster
          ? `${ref.namespace}/${ref.name} on cluster ${ref.cluster}`
          : key
      }
      deepLink={{ title: 'View platform', link }}
    >
      <PlatformsStateProvider key={key} only={ref}>
        <div data-testid="entity-platform-card">
          <CardBody platformRef={ref} />
        </div>
      </PlatformsStateProvider>
    </InfoCard>
  );
}
