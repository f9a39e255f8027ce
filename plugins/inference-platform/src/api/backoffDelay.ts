export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Spread of the jitter, 0.2 = ±20 %, so reconnecting tabs do not stampede. */
  jitter: number;
}

export const defaultBackoff: BackoffOptions = {
  baseMs: 1000,
  maxMs: 30_000,
  jitter: 0.2,
};

/** Exponential delay before attempt number `attempt` (1-based), with jitter. */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = defaultBackoff,
  random: () => number = Math.random,
): number {
  const exp = Math.min(
    options.maxMs,
    options.baseMs * 2 ** Math.max(0, attempt - 1),
  );
  const factor = 1 - options.jitter + 2 * options.jitter * random();
  return Math.round(Math.min(options.maxMs, exp * factor));
}
