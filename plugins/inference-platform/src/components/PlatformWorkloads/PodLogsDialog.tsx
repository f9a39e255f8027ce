import { useCallback, useEffect, useState } from 'react';
import {
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  TextField,
} from '@material-ui/core';
import Alert from '@material-ui/lab/Alert';
import { Progress } from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import {
  PlatformRef,
  PodSummary,
} from '@cv-platform/plugin-inference-platform-common';
import { describeError, inferencePlatformApiRef } from '../../api';

/**
 * The last 500 lines of one container's log in one of the platform's pods,
 * or of its previous run (after a crash), read through the Kubernetes API.
 */
export function PodLogsDialog(props: {
  platformRef: PlatformRef;
  pod: PodSummary;
  onClose(): void;
}) {
  const { pod, onClose } = props;
  const { cluster, namespace, name } = props.platformRef;
  const api = useApi(inferencePlatformApiRef);
  const containers = [...pod.initContainers, ...pod.containers];
  // The server by default: the init container only when it is what failed.
  const [container, setContainer] = useState(
    pod.reason && pod.initContainers.some(c => pod.reason!.startsWith(`${c}:`))
      ? pod.reason.split(':')[0]
      : pod.containers[0] ?? containers[0],
  );
  const [previous, setPrevious] = useState(false);
  const [log, setLog] = useState<string>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);

  const load = useCallback(async () => {
    setLoading(true);
    setError(undefined);
    try {
      setLog(
        await api.getPodLog({ cluster, namespace, name }, pod.name, {
          container,
          previous,
        }),
      );
    } catch (e) {
      setLog(undefined);
      setError(describeError(e));
    } finally {
      setLoading(false);
    }
  }, [api, cluster, namespace, name, pod.name, container, previous]);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Dialog
      open
      onClose={onClose}
      fullWidth
      maxWidth="lg"
      aria-labelledby="pod-logs-title"
    >
      <DialogTitle id="pod-logs-title">Logs of {pod.name}</DialogTitle>
      <DialogContent>
        <Box display="flex" alignItems="center" style={{ gap: 16 }} mb={1}>
          <TextField
            select
            id="pod-logs-container"
            label="Container"
            value={container}
            onChange={e => setContainer(e.target.value)}
            margin="dense"
          >
            {containers.map(c => (
              <MenuItem key={c} value={c}>
                {c}
                {pod.initContainers.includes(c) ? ' (init)' : ''}
              </MenuItem>
            ))}
          </TextField>
          <FormControlLabel
            control={
              <Checkbox
                checked={previous}
                onChange={e => setPrevious(e.target.checked)}
              />
            }
            label="Previous run"
          />
        </Box>
        {loading && <Progress />}
        {error && <Alert severity="error">{error}</Alert>}
        {log !== undefined && !error && (
          <pre
            data-testid="pod-log"
            style={{
              maxHeight: 480,
              overflow: 'auto',
              fontSize: 12,
              margin: 0,
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-all',
            }}
          >
            {log || '(empty)'}
          </pre>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={() => void load()} disabled={loading}>
          Refresh
        </Button>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
