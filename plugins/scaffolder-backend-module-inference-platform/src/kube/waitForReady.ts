import { setTimeout as sleep } from 'node:timers/promises';
import { InferencePlatformV1beta1 } from '@cv-platform/inference-platform-api';

export interface WaitForReadyOptions {
  /** Reads the platform's current state; undefined when it does not exist. */
  read: () => Promise<InferencePlatformV1beta1 | undefined>;
  timeoutMs: number;
  intervalMs?: number;
  /**
   * How long phase Failed must last before the wait gives up. The operator
   * retries failed reconciles, so a single Failed reading may be transient;
   * one that persists (a model that cannot be downloaded) is not.
   */
  failedGraceMs?: number;
  log: (message: string) => void;
  signal?: AbortSignal;
}

/** One line describing where a platform is on its way to Ready. */
export function describeProgress(p: InferencePlatformV1beta1): string {
  const s = p.status;
  if (!s?.phase) return 'waiting for the operator to pick it up';
  const stale =
    s.observedGeneration !== undefined &&
    s.observedGeneration !== p.metadata.generation
      ? ' (operator has not seen the latest spec yet)'
      : '';
  const replicas = [
    s.qdrantReadiness && `Qdrant ${s.qdrantReadiness}`,
    s.inferenceReadiness && `inference ${s.inferenceReadiness}`,
  ]
    .filter(Boolean)
    .join(', ');
  return `phase ${s.phase}${replicas ? ` [${replicas}]` : ''}${
    s.message ? `: ${s.message}` : ''
  }${stale}`;
}

/**
 * A read that failed for a reason that passes (a dropped connection, an API
 * server restarting or throttling) rather than one a retry cannot fix
 * (forbidden, not found, invalid).
 */
export function isTransientReadError(e: unknown): boolean {
  const status = (e as { statusCode?: unknown } | undefined)?.statusCode;
  if (typeof status !== 'number') return true;
  return status === 429 || status >= 500;
}

const isCurrent = (p: InferencePlatformV1beta1) =>
  p.status?.observedGeneration === p.metadata.generation;

/**
 * Polls until the operator reports phase Ready for the current generation,
 * logging each change of progress so the task log tells the story. A wait
 * can last many minutes: reads that fail transiently are logged and retried
 * until the deadline instead of failing the task.
 */
export async function waitForReady(
  options: WaitForReadyOptions,
): Promise<InferencePlatformV1beta1> {
  const { read, timeoutMs, log, signal } = options;
  const intervalMs = options.intervalMs ?? 2000;
  const failedGraceMs = options.failedGraceMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let lastLine: string | undefined;
  let failedSince: number | undefined;
  for (;;) {
    signal?.throwIfAborted();
    let platform: InferencePlatformV1beta1 | undefined;
    try {
      platform = await read();
    } catch (e) {
      if (!isTransientReadError(e) || Date.now() >= deadline) throw e;
      const line = `could not read the platform, retrying: ${
        e instanceof Error ? e.message : e
      }`;
      if (line !== lastLine) {
        log(line);
        lastLine = line;
      }
      await sleep(
        Math.min(intervalMs, Math.max(0, deadline - Date.now())),
        undefined,
        { signal },
      );
      continue;
    }
    if (!platform) {
      throw new Error('the platform was deleted while waiting for it');
    }
    const line = describeProgress(platform);
    if (line !== lastLine) {
      log(line);
      lastLine = line;
    }
    if (isCurrent(platform) && platform.status?.phase === 'Ready') {
      return platform;
    }
    if (isCurrent(platform) && platform.status?.phase === 'Failed') {
      failedSince ??= Date.now();
      if (Date.now() - failedSince >= failedGraceMs) {
        throw new Error(
          `the platform failed: ${platform.status?.message ?? 'no message'}`,
        );
      }
    } else {
      failedSince = undefined;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${Math.round(
          timeoutMs / 1000,
        )} s waiting for phase Ready; last seen ${line}`,
      );
    }
    await sleep(
      Math.min(intervalMs, Math.max(0, deadline - Date.now())),
      undefined,
      {
        signal,
      },
    );
  }
}
