/**
 * State of the SSE feed as the user sees it: `connecting` before the first
 * stream opens, `live` while one is open, `reconnecting` while retrying after
 * a short outage, `offline` after a long one or a fatal error.
 *
 * @public
 */
export type ConnectionState =
  | 'connecting'
  | 'live'
  | 'reconnecting'
  | 'offline';

/** @public */
export interface ConnectionStatus {
  state: ConnectionState;
  /** Consecutive failed attempts since the last open stream. */
  attempt: number;
  /** Epoch ms of the next attempt, while one is scheduled. */
  retryAt?: number;
  /** Last failure, as a sentence for the user. */
  error?: string;
  /** True when retrying cannot help (no permission, no backend plugin). */
  fatal?: boolean;
}

export const initialConnectionStatus: ConnectionStatus = {
  state: 'connecting',
  attempt: 0,
};
