import { Button, Grid, makeStyles, Paper, Typography } from '@material-ui/core';
import {
  InfoCard,
  Progress,
  StatusError,
  StatusOK,
  StatusPending,
} from '@backstage/core-components';
import { PodSummary } from '@cv-platform/plugin-inference-platform-common';
import { Age } from '../Age';

const useStyles = makeStyles(theme => ({
  pod: { padding: theme.spacing(1.5), height: '100%' },
  name: { wordBreak: 'break-all' },
}));

function PodStatus(props: { pod: PodSummary }) {
  const { pod } = props;
  if (pod.ready) return <StatusOK>Ready</StatusOK>;
  if (pod.phase === 'Failed')
    return <StatusError>{pod.reason ?? 'Failed'}</StatusError>;
  return <StatusPending>{pod.reason ?? pod.phase}</StatusPending>;
}

/** Qdrant and inference pods, one tile each; with `onLogs`, each offers its logs. */
export function PodsGrid(props: {
  pods?: PodSummary[];
  loading: boolean;
  onLogs?: (pod: PodSummary) => void;
}) {
  const classes = useStyles();
  const pods = [...(props.pods ?? [])].sort(
    (a, b) =>
      a.component.localeCompare(b.component) || a.name.localeCompare(b.name),
  );
  let body;
  if (props.loading && !props.pods) {
    body = <Progress />;
  } else if (pods.length === 0) {
    body = (
      <Typography variant="body2">
        No pods: either the operator has not created the workloads yet, or both
        tiers are scaled to zero. Recent events below say which.
      </Typography>
    );
  } else {
    body = (
      <Grid container spacing={2}>
        {pods.map(pod => (
          <Grid item key={pod.name} xs={12} sm={6} md={4} lg={3}>
            <Paper
              variant="outlined"
              className={classes.pod}
              data-testid="pod-tile"
            >
              <Typography variant="subtitle2" className={classes.name}>
                {pod.name}
              </Typography>
              <Typography
                variant="caption"
                color="textSecondary"
                component="div"
              >
                {pod.component} · {pod.nodeName ?? 'unscheduled'} ·{' '}
                {pod.restarts} restarts · <Age time={pod.createdAt} />
              </Typography>
              <PodStatus pod={pod} />
              {props.onLogs && (
                <Button
                  size="small"
                  aria-label={`Logs of ${pod.name}`}
                  onClick={() => props.onLogs!(pod)}
                >
                  Logs
                </Button>
              )}
            </Paper>
          </Grid>
        ))}
      </Grid>
    );
  }
  return (
    <InfoCard title={`Pods${pods.length ? ` (${pods.length})` : ''}`}>
      {body}
    </InfoCard>
  );
}
