import { useMemo } from 'react';
import { useAtomValue } from 'jotai';
import { Box, Typography } from '@material-ui/core';
import {
  EmptyState,
  LinkButton,
  Progress,
  WarningPanel,
} from '@backstage/core-components';
import { useRouteRef } from '@backstage/core-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import { inferencePlatformCreatePermission } from '@cv-platform/plugin-inference-platform-common';
import { createPlatformRouteRef } from '../../routes';
import { createListView, usePlatformsState } from '../../state';
import { PlatformFilters } from './PlatformFilters';
import { PlatformTable } from './PlatformTable';

function CreateButton() {
  const createPath = useRouteRef(createPlatformRouteRef);
  const { allowed } = usePermission({
    permission: inferencePlatformCreatePermission,
  });
  if (!createPath || !allowed) return null;
  return (
    <LinkButton to={createPath()} color="primary" variant="contained">
      Create a platform
    </LinkButton>
  );
}

/** The list with its loading, empty, error and stale states. */
export function PlatformList() {
  const state = usePlatformsState();
  const view = useMemo(() => createListView(state), [state]);
  const loaded = useAtomValue(state.loadedAtom);
  const connection = useAtomValue(state.connectionAtom);
  const total = useAtomValue(view.totalAtom);
  const clusters = useAtomValue(state.clustersAtom);
  const unavailable = clusters.filter(c => !c.available).map(c => c.name);
  const unavailableNote = unavailable.length > 0 && (
    <Box mb={2}>
      <WarningPanel
        severity="info"
        title={`Not showing cluster${
          unavailable.length > 1 ? 's' : ''
        } ${unavailable.join(', ')}`}
        message="The backend cannot reach it yet (or is still loading its platforms). Reload the page later to include it."
      />
    </Box>
  );

  if (!loaded) {
    if (connection.fatal) {
      return (
        <WarningPanel
          severity="error"
          title="Cannot load inference platforms"
          message={connection.error}
        >
          Reload the page once the problem above is fixed.
        </WarningPanel>
      );
    }
    if (connection.state === 'reconnecting' || connection.state === 'offline') {
      return (
        <>
          <WarningPanel
            severity="warning"
            title="The inference-platform backend does not answer"
            message={`${
              connection.error ?? 'No response'
            }. The page retries on its own (attempt ${
              connection.attempt
            }); if this persists, check that the Backstage backend runs and reaches the Kubernetes API.`}
          />
          <Progress />
        </>
      );
    }
    return (
      <Box>
        <Progress />
        <Typography variant="body2" color="textSecondary">
          Loading platforms…
        </Typography>
      </Box>
    );
  }

  if (total === 0) {
    return (
      <>
        {unavailableNote}
        <EmptyState
          missing="data"
          title="No inference platforms yet"
          description="Create one from the software templates, or apply an InferencePlatformV1beta1 resource with kubectl; it appears here as soon as the cluster accepts it."
          action={<CreateButton />}
        />
      </>
    );
  }

  return (
    <>
      {unavailableNote}
      {connection.state === 'offline' && (
        <Box mb={2}>
          <WarningPanel
            severity="warning"
            title="Showing the last known state"
            message={`The live feed is offline (${
              connection.error ?? 'no response'
            }). Values may be out of date until it reconnects; the page keeps retrying.`}
          />
        </Box>
      )}
      <PlatformFilters view={view} />
      <PlatformTable view={view} />
    </>
  );
}
