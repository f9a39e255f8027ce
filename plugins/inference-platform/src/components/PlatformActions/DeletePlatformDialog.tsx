import { useCallback, useState } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
} from '@material-ui/core';
import Alert from '@material-ui/lab/Alert';
import { useApi } from '@backstage/core-plugin-api';
import { InferencePlatform } from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';
import { useSubmit } from './useSubmit';

/**
 * Deletion asks for the name to be typed: it removes the Qdrant volumes with
 * the platform. Nothing is removed from the page on success; the row goes
 * when the feed reports the object gone.
 */
export function DeletePlatformDialog(props: {
  platform: InferencePlatform;
  open: boolean;
  onClose(): void;
  onRequested(): void;
}) {
  const { platform, onClose, onRequested } = props;
  const api = useApi(inferencePlatformApiRef);
  const name = platform.metadata.name!;
  const [typed, setTyped] = useState('');
  const action = useCallback(
    () => api.deletePlatform(platform.metadata.namespace!, name),
    [api, platform, name],
  );
  const done = useCallback(() => {
    onRequested();
    onClose();
  }, [onRequested, onClose]);
  const { busy, error, submit } = useSubmit(action, done);

  return (
    <Dialog
      open={props.open}
      onClose={busy ? undefined : onClose}
      aria-labelledby="delete-title"
    >
      <DialogTitle id="delete-title">Delete {name}?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          This deletes the Qdrant cluster with its data volumes and the
          inference servers of {platform.metadata.namespace}/{name}. It cannot
          be undone. Type <strong>{name}</strong> to confirm.
        </DialogContentText>
        <TextField
          id="delete-confirm-name"
          label="Platform name"
          fullWidth
          margin="dense"
          value={typed}
          onChange={e => setTyped(e.target.value)}
        />
        {error && <Alert severity="error">{error}</Alert>}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button
          variant="contained"
          color="secondary"
          onClick={submit}
          disabled={busy || typed !== name}
        >
          {busy ? 'Deleting…' : 'Delete'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
