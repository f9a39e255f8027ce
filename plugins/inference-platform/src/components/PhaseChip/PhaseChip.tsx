import { Chip, makeStyles } from '@material-ui/core';
import { Phase } from '@cv-platform/plugin-inference-platform-common';

type Tone = 'ok' | 'warning' | 'error' | 'pending' | 'running' | 'aborted';

const TONE: Record<Phase, Tone> = {
  Ready: 'ok',
  Loading: 'running',
  Pending: 'pending',
  Degraded: 'warning',
  Failed: 'error',
};

const useStyles = makeStyles(theme => {
  const tone = (t: Tone) => ({
    backgroundColor: theme.palette.status[t],
    color: theme.palette.getContrastText(theme.palette.status[t]),
  });
  return {
    ok: tone('ok'),
    warning: tone('warning'),
    error: tone('error'),
    pending: tone('pending'),
    running: tone('running'),
    aborted: tone('aborted'),
  };
});

/** The operator's phase of a platform; `deleting` wins over any phase. */
export function PhaseChip(props: { phase?: Phase; deleting?: boolean }) {
  const classes = useStyles();
  if (props.deleting) {
    return <Chip size="small" label="Deleting" className={classes.aborted} />;
  }
  if (!props.phase) {
    // No status yet: the operator has not reconciled the object.
    return <Chip size="small" label="Unknown" className={classes.pending} />;
  }
  return (
    <Chip
      size="small"
      label={props.phase}
      className={classes[TONE[props.phase] ?? 'pending']}
      data-phase={props.phase}
    />
  );
}
