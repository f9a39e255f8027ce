import { Box, Grid, Typography } from '@material-ui/core';
import { InfoCard, StatusOK, StatusPending } from '@backstage/core-components';
import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import { inferenceReadiness, qdrantReadiness } from '../../state';
import { PhaseChip } from '../PhaseChip';
import { ReadinessBar } from '../ReadinessBar';

/** Phase, the operator's message and both tiers' readiness. */
export function StatusCard(props: { platform: InferencePlatformV1beta1 }) {
  const { platform } = props;
  const status = platform.status;
  const upToDate =
    status?.observedGeneration !== undefined &&
    status.observedGeneration >= (platform.metadata.generation ?? 0);
  return (
    <InfoCard title="Status">
      <Box display="flex" alignItems="center" mb={2} style={{ gap: 16 }}>
        <PhaseChip
          phase={status?.phase}
          deleting={Boolean(platform.metadata.deletionTimestamp)}
        />
        <Typography variant="body2" data-testid="observed-generation">
          {upToDate ? (
            <StatusOK>
              Reconciled generation {platform.metadata.generation}
            </StatusOK>
          ) : (
            <StatusPending>
              Operator catching up (observed{' '}
              {status?.observedGeneration ?? 'none'}, current{' '}
              {platform.metadata.generation ?? '?'})
            </StatusPending>
          )}
        </Typography>
      </Box>
      {status?.message && (
        <Typography variant="body2" paragraph>
          {status.message}
        </Typography>
      )}
      {platform.metadata.deletionTimestamp && (
        <Typography variant="body2" paragraph color="textSecondary">
          Deletion requested; the platform disappears once the operator has
          removed its workloads.
        </Typography>
      )}
      <Grid container spacing={2}>
        <Grid item xs={6}>
          <Typography variant="subtitle2">Qdrant</Typography>
          <ReadinessBar label="qdrant" readiness={qdrantReadiness(platform)} />
        </Grid>
        <Grid item xs={6}>
          <Typography variant="subtitle2">Inference</Typography>
          <ReadinessBar
            label="inference"
            readiness={inferenceReadiness(platform)}
          />
        </Grid>
      </Grid>
    </InfoCard>
  );
}
