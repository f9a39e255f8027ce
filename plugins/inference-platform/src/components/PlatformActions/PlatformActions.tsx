import { useCallback, useState } from 'react';
import { Box, Button, Typography } from '@material-ui/core';
import { alertApiRef, useApi } from '@backstage/core-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  InferencePlatformV1beta1,
  inferencePlatformDeletePermission,
  inferencePlatformUpdatePermission,
} from '@cv-platform/plugin-inference-platform-common';
import { platformKey, usePlatformsState } from '../../state';
import { DeletePlatformDialog } from './DeletePlatformDialog';
import { EditPlatformDialog } from './EditPlatformDialog';
import { ScaleDialog } from './ScaleDialog';

type Open = 'scale' | 'edit' | 'delete' | undefined;

/**
 * The actions the user's permissions allow on this platform. A confirmed
 * write (the API returned the new object) is shown at once; nothing is
 * shown before the API confirms it.
 */
export function PlatformActions(props: {
  platform: InferencePlatformV1beta1;
  /** The cluster the page addresses it on; absent: the default cluster. */
  cluster?: string;
}) {
  const { platform, cluster } = props;
  const state = usePlatformsState();
  const alertApi = useApi(alertApiRef);
  const resourceRef = platformKey(platform, cluster);
  const update = usePermission({
    permission: inferencePlatformUpdatePermission,
    resourceRef,
  });
  const remove = usePermission({
    permission: inferencePlatformDeletePermission,
    resourceRef,
  });
  const [open, setOpen] = useState<Open>();
  const close = useCallback(() => setOpen(undefined), []);
  const deleting = Boolean(platform.metadata.deletionTimestamp);

  const onConfirmed = useCallback(
    (updated: InferencePlatformV1beta1) => {
      state.applyConfirmed(updated, cluster);
      alertApi.post({
        message: `Saved ${resourceRef}; the operator is rolling it out.`,
        severity: 'success',
        display: 'transient',
      });
    },
    [state, alertApi, resourceRef, cluster],
  );
  const onDeleteRequested = useCallback(() => {
    alertApi.post({
      message: `Deletion of ${resourceRef} requested; it disappears once its workloads are removed.`,
      severity: 'info',
      display: 'transient',
    });
  }, [alertApi, resourceRef]);

  if (update.loading || remove.loading) return null;
  if (!update.allowed && !remove.allowed) {
    return (
      <Typography
        variant="body2"
        color="textSecondary"
        data-testid="read-only-note"
      >
        Read only: you may not change or delete this platform.
      </Typography>
    );
  }
  return (
    <Box display="flex" style={{ gap: 8 }}>
      {update.allowed && (
        <>
          <Button
            variant="outlined"
            color="primary"
            disabled={deleting}
            onClick={() => setOpen('scale')}
          >
            Scale
          </Button>
          <Button
            variant="outlined"
            color="primary"
            disabled={deleting}
            onClick={() => setOpen('edit')}
          >
            Change model / version
          </Button>
        </>
      )}
      {remove.allowed && (
        <Button
          variant="outlined"
          color="secondary"
          disabled={deleting}
          onClick={() => setOpen('delete')}
        >
          Delete
        </Button>
      )}
      {/* Mounted only while open, so each opening starts from current values. */}
      {open === 'scale' && (
        <ScaleDialog
          platform={platform}
          cluster={cluster}
          open
          onClose={close}
          onConfirmed={onConfirmed}
        />
      )}
      {open === 'edit' && (
        <EditPlatformDialog
          platform={platform}
          cluster={cluster}
          open
          onClose={close}
          onConfirmed={onConfirmed}
        />
      )}
      {open === 'delete' && (
        <DeletePlatformDialog
          platform={platform}
          cluster={cluster}
          open
          onClose={close}
          onRequested={onDeleteRequested}
        />
      )}
    </Box>
  );
}
