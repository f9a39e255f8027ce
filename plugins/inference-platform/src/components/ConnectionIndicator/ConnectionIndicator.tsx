import { useEffect, useState } from 'react';
import { useAtomValue } from 'jotai';
import { Tooltip, Typography } from '@material-ui/core';
import {
  StatusError,
  StatusOK,
  StatusPending,
  StatusWarning,
} from '@backstage/core-components';
import { ConnectionStatus } from '../../api';
import { usePlatformsState } from '../../state';

function useSecondsUntil(epochMs?: number): number | undefined {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!epochMs) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [epochMs]);
  return epochMs ? Math.max(0, Math.ceil((epochMs - now) / 1000)) : undefined;
}

function Label(props: { status: ConnectionStatus; seconds?: number }) {
  const { status, seconds } = props;
  const retry =
    seconds !== undefined && !status.fatal ? `, retrying in ${seconds} s` : '';
  switch (status.state) {
    case 'live':
      return <StatusOK>Live</StatusOK>;
    case 'connecting':
      return <StatusPending>Connecting…</StatusPending>;
    case 'reconnecting':
      return (
        <StatusWarning>
          Reconnecting (attempt {status.attempt}
          {retry})
        </StatusWarning>
      );
    default:
      return <StatusError>Offline{retry}</StatusError>;
  }
}

/** live / reconnecting / offline state of the page's event feed. */
export function ConnectionIndicator() {
  const status = useAtomValue(usePlatformsState().connectionAtom);
  const seconds = useSecondsUntil(
    status.state === 'live' ? undefined : status.retryAt,
  );
  let help = 'Updates arrive as they happen.';
  if (status.state !== 'live') {
    help = status.error
      ? `Last error: ${status.error}`
      : 'Waiting for the event feed of the inference-platform backend.';
    if (!status.fatal && status.state !== 'connecting') {
      help +=
        ' What you see may be out of date; the page keeps retrying on its own.';
    }
  }
  return (
    <Tooltip title={help}>
      <Typography
        component="span"
        variant="body2"
        role="status"
        aria-live="polite"
        data-testid="connection-indicator"
        data-state={status.state}
      >
        <Label status={status} seconds={seconds} />
      </Typography>
    </Tooltip>
  );
}
