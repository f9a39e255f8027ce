import { useAtom } from 'jotai';
import {
  Box,
  Chip,
  InputAdornment,
  makeStyles,
  TextField,
} from '@material-ui/core';
import SearchIcon from '@material-ui/icons/Search';
import { Phase } from '@cv-platform/plugin-inference-platform-common';
import { ListView } from '../../state';

const PHASES: Phase[] = ['Ready', 'Loading', 'Pending', 'Degraded', 'Failed'];

const useStyles = makeStyles(theme => ({
  root: {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    gap: theme.spacing(1),
    marginBottom: theme.spacing(2),
  },
  search: { minWidth: 280 },
}));

/** Free-text filter (name, namespace, model) and phase toggles. */
export function PlatformFilters(props: { view: ListView }) {
  const classes = useStyles();
  const [text, setText] = useAtom(props.view.textAtom);
  const [phases, setPhases] = useAtom(props.view.phasesAtom);
  const toggle = (phase: Phase) =>
    setPhases(
      phases.includes(phase)
        ? phases.filter(p => p !== phase)
        : [...phases, phase],
    );
  return (
    <Box className={classes.root}>
      <TextField
        className={classes.search}
        variant="outlined"
        size="small"
        placeholder="Filter by name, namespace or model"
        value={text}
        onChange={e => setText(e.target.value)}
        inputProps={{ 'aria-label': 'Filter platforms' }}
        InputProps={{
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
        }}
      />
      {PHASES.map(phase => (
        <Chip
          key={phase}
          label={phase}
          clickable
          color={phases.includes(phase) ? 'primary' : 'default'}
          variant={phases.includes(phase) ? 'default' : 'outlined'}
          onClick={() => toggle(phase)}
          aria-pressed={phases.includes(phase)}
        />
      ))}
    </Box>
  );
}
