import { LinearProgress, makeStyles, Typography } from '@material-ui/core';
import { Readiness } from '../../state';

const useStyles = makeStyles(theme => ({
  root: { minWidth: 96 },
  bar: { height: 6, borderRadius: 3, backgroundColor: theme.palette.divider },
  complete: { backgroundColor: theme.palette.status.ok },
  partial: { backgroundColor: theme.palette.status.warning },
  none: { backgroundColor: theme.palette.status.error },
}));

/** ready/desired replicas of one tier as a bar and a count. */
export function ReadinessBar(props: { readiness: Readiness; label: string }) {
  const classes = useStyles();
  const { ready, desired } = props.readiness;
  const value = desired === 0 ? 100 : Math.min(100, (ready / desired) * 100);
  let tone = classes.partial;
  if (ready >= desired) tone = classes.complete;
  else if (ready === 0) tone = classes.none;
  const text = `${ready}/${desired}`;
  return (
    // A plain div: MUI's Box creates a style sheet per instance, two per table row.
    <div className={classes.root}>
      <Typography
        variant="body2"
        component="div"
        noWrap
        data-testid={`${props.label}-readiness`}
      >
        {text}
        {desired === 0 ? ' (scaled to zero)' : ''}
      </Typography>
      <LinearProgress
        variant="determinate"
        value={value}
        className={classes.bar}
        classes={{ bar: tone }}
        aria-label={`${props.label} ready ${text}`}
      />
    </div>
  );
}
