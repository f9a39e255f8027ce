import { useAtom, useAtomValue } from 'jotai';
import {
  Box,
  Chip,
  Divider,
  InputAdornment,
  makeStyles,
  TextField,
} from '@material-ui/core';
import SearchIcon from '@material-ui/icons/Search';
import { Phase } from '@cv-platform/plugin-inference-platform-common';
import { ListView, usePlatformsState } from '../../state';

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
  divider: { height: 24, margin: theme.spacing(0, 1) },
}));

function toggled<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? list.filter(i => i !== item) : [...list, item];
}

/**
 * Free-text filter (name, namespace, model, cluster), phase toggles and,
 * when the backend has more than one cluster, cluster toggles.
 */
export function PlatformFilters(props: { view: ListView }) {
  const classes = useStyles();
  const state = usePlatformsState();
  const clusters = useAtomValue(state.clustersAtom);
  const [text, setText] = useAtom(props.view.textAtom);
  const [phases, setPhases] = useAtom(props.view.phasesAtom);
  const [clusterFilter, setClusterFilter] = useAtom(
    props.view.clusterFilterAtom,
  );
  const toggle = (phase: Phase) => setPhases(toggled(phases, phase));
  return (
    <Box className={classes.root}>
      <TextField
        className={classes.search}
        variant="outlined"
        size="small"
        placeholder={
          clusters.length > 1
            ? 'Filter by name, namespace, cluster or model'
            : 'Filter by name, namespace or model'
        }
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
      {clusters.length > 1 && (
        <Box
          display="flex"
          alignItems="center"
          style={{ gap: 8 }}
          role="group"
          aria-label="Filter by cluster"
          data-testid="cluster-filter"
        >
          <Divider orientation="vertical" className={classes.divider} />
          {clusters.map(c => (
            <Chip
              key={c.name}
              label={c.name}
              clickable
              disabled={!c.available}
              title={
                c.available
                  ? `Only platforms of cluster ${c.name}`
                  : `Cluster ${c.name} is not available`
              }
              color={clusterFilter.includes(c.name) ? 'primary' : 'default'}
              variant={clusterFilter.includes(c.name) ? 'default' : 'outlined'}
              onClick={() => setClusterFilter(toggled(clusterFilter, c.name))}
              aria-pressed={clusterFilter.includes(c.name)}
            />
          ))}
        </Box>
      )}
    </Box>
  );
}
