import { memo } from 'react';
import { useAtomValue } from 'jotai';
import { makeStyles, TableCell, TableRow } from '@material-ui/core';
import { Link } from '@backstage/core-components';
import { useRouteRef } from '@backstage/core-plugin-api';
import { platformRouteRef } from '../../routes';
import {
  inferenceReadiness,
  parsePlatformKey,
  PlatformKey,
  qdrantReadiness,
  usePlatformsState,
} from '../../state';
import { countRender } from '../../renderCount';
import { Age } from '../Age';
import { PhaseChip } from '../PhaseChip';
import { ReadinessBar } from '../ReadinessBar';

/** Every row has this height, which lets the table render only the rows in view. */
export const ROW_HEIGHT = 48;

const useStyles = makeStyles({
  row: { height: ROW_HEIGHT },
  // One line per cell, whatever the content, so the height holds.
  text: { whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' },
});

/** Last path segment of a model URL; the full URL goes in the tooltip. */
function modelName(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || url;
}

function PlatformRowView(props: {
  platformKey: PlatformKey;
  /** The backend has more than one cluster: a Cluster cell first. */
  showCluster?: boolean;
}) {
  const { platformKey, showCluster } = props;
  countRender('PlatformRow');
  countRender(`PlatformRow:${platformKey}`);
  const classes = useStyles();
  const state = usePlatformsState();
  const platform = useAtomValue(state.platformAtom(platformKey));
  const detailPath = useRouteRef(platformRouteRef);
  if (!platform) return null;
  const { cluster, namespace, name } = parsePlatformKey(platformKey);
  // platformPagePath's form, below wherever the app mounts the plugin.
  const link = `${detailPath({ namespace, name })}${
    cluster ? `?cluster=${encodeURIComponent(cluster)}` : ''
  }`;
  const modelUrl = platform.spec.inference.model.url;
  return (
    <TableRow
      hover
      className={classes.row}
      data-testid="platform-row"
      data-key={platformKey}
    >
      {showCluster && (
        <TableCell className={classes.text} title={cluster}>
          {cluster}
        </TableCell>
      )}
      <TableCell className={classes.text} title={name}>
        <Link to={link}>{name}</Link>
      </TableCell>
      <TableCell className={classes.text} title={namespace}>
        {namespace}
      </TableCell>
      {/* Native titles instead of MUI Tooltips: three Tooltips per row made a
          1,000-row table take seconds to mount. */}
      <TableCell title={platform.status?.message}>
        <PhaseChip
          phase={platform.status?.phase}
          deleting={Boolean(platform.metadata.deletionTimestamp)}
        />
      </TableCell>
      <TableCell>
        <ReadinessBar label="qdrant" readiness={qdrantReadiness(platform)} />
      </TableCell>
      <TableCell>
        <ReadinessBar
          label="inference"
          readiness={inferenceReadiness(platform)}
        />
      </TableCell>
      <TableCell className={classes.text} title={modelUrl}>
        {modelName(modelUrl)}
      </TableCell>
      <TableCell>
        <Age time={platform.metadata.creationTimestamp} />
      </TableCell>
    </TableRow>
  );
}

/**
 * One platform. Subscribes to that platform's atom only, and is memoized on
 * its key, so an event about another platform never renders it.
 */
export const PlatformRow = memo(PlatformRowView);
