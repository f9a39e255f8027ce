import { ReactNode } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
} from '@material-ui/core';
import Alert from '@material-ui/lab/Alert';

/**
 * The frame every platform action shares: an explanation, the fields, the
 * API's error if it refused, and Cancel / confirm buttons that lock while the
 * request is in flight (closing is refused then too).
 */
export function ActionDialog(props: {
  open: boolean;
  onClose(): void;
  /** Prefix of the element ids (`<id>-title`). */
  id: string;
  title: ReactNode;
  description: ReactNode;
  children: ReactNode;
  busy: boolean;
  error?: string;
  confirmLabel: string;
  busyLabel: string;
  confirmColor: 'primary' | 'secondary';
  /** The fields are not valid (or unchanged); busy disables confirm as well. */
  confirmDisabled: boolean;
  onConfirm(): void;
  fullWidth?: boolean;
}) {
  const { busy, onClose } = props;
  return (
    <Dialog
      open={props.open}
      onClose={busy ? undefined : onClose}
      aria-labelledby={`${props.id}-title`}
      fullWidth={props.fullWidth}
    >
      <DialogTitle id={`${props.id}-title`}>{props.title}</DialogTitle>
      <DialogContent>
        <DialogContentText>{props.description}</DialogContentText>
        {props.children}
        {props.error && <Alert severity="error">{props.error}</Alert>}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button
          variant="contained"
          color={props.confirmColor}
          onClick={props.onConfirm}
          disabled={busy || props.confirmDisabled}
        >
          {busy ? props.busyLabel : props.confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
