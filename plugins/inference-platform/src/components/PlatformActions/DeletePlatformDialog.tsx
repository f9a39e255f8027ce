import { useCallback, useState } from 'react';
import { TextField } from '@material-ui/core';
import { useApi } from '@backstage/core-plugin-api';
import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';
import { platformRefOf } from '../../state';
import { useSubmit } from './useSubmit';
import { ActionDialog } from './ActionDialog';

/**
 * Deletion asks for the name to be typed: it removes the Qdrant volumes with
 * the platform. Nothing is removed from the page on success; the row goes
 * when the feed reports the object gone.
 */
export function DeletePlatformDialog(props: {
  platform: InferencePlatformV1beta1;
  /** Absent: the default cluster. */
  cluster?: string;
  open: boolean;
  onClose(): void;
  onRequested(): void;
}) {
  const { platform, cluster, onClose, onRequested } = props;
  const api = useApi(inferencePlatformApiRef);
  const name = platform.metadata.name!;
  const [typed, setTyped] = useState('');
  const action = useCallback(
    () => api.deletePlatform(platformRefOf(platform, cluster)),
    [api, platform, cluster],
  );
  const done = useCallback(() => {
    onRequested();
    onClose();
  }, [onRequested, onClose]);
  const { busy, error, submit } = useSubmit(action, done);

  return (
    <ActionDialog
      open={props.open}
      onClose={onClose}
      id="delete"
      title={<>Delete {name}?</>}
      description={
        <>
          This deletes the Qdrant cluster with its data volumes and the
          inference servers of {platform.metadata.namespace}/{name}
          {cluster ? ` on cluster ${cluster}` : ''}. It cannot be undone. Type{' '}
          <strong>{name}</strong> to confirm.
        </>
      }
      busy={busy}
      error={error}
      confirmLabel="Delete"
      busyLabel="Deleting…"
      confirmColor="secondary"
      confirmDisabled={typed !== name}
      onConfirm={submit}
    >
      <TextField
        id="delete-confirm-name"
        label="Platform name"
        fullWidth
        margin="dense"
        value={typed}
        onChange={e => setTyped(e.target.value)}
      />
    </ActionDialog>
  );
}
