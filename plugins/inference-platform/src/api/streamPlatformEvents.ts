import {
  EventSourceMessage,
  fetchEventSource,
} from '@microsoft/fetch-event-source';
import {
  InferencePlatformV1beta1,
  PLATFORM_EVENT_TYPES,
  PlatformChangeEvent,
  PlatformEventType,
  SnapshotEvent,
} from '@cv-platform/plugin-inference-platform-common';
import { PlatformFeedHandlers } from './InferencePlatformApi';
import { BackoffOptions, backoffDelay, defaultBackoff } from './backoffDelay';
import { ConnectionStatus } from './ConnectionStatus';

export interface StreamPlatformEventsOptions {
  /** Absolute URL of the backend's GET /events. */
  url: string;
  /** The cluster the URL names; stands in for events that carry none. */
  cluster?: string;
  /** Backstage's fetchApi.fetch, so identity headers go along. */
  fetch: typeof fetch;
  handlers: PlatformFeedHandlers;
  signal: AbortSignal;
  backoff?: BackoffOptions;
  /** Failed attempts in a row after which the feed counts as offline. */
  offlineAfterAttempts?: number;
  /**
   * Silence after which an open stream is presumed dead. The backend sends a
   * heartbeat every 15 s; a half-open TCP connection would otherwise look
   * live forever.
   */
  staleAfterMs?: number;
  random?: () => number;
}

class FatalError extends Error {}

function errorMessage(err: unknown): string {
  const message = (err as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(err);
}
class RetriableError extends Error {}

const CHANGE_TYPES = new Set<string>(PLATFORM_EVENT_TYPES);

async function describeFailure(response: Response): Promise<string> {
  let detail = '';
  try {
    const body = await response.json();
    detail = body?.error?.message ? `: ${body.error.message}` : '';
  } catch {
    // The body is not Backstage's error JSON; the status line has to do.
  }
  return `HTTP ${response.status}${detail}`;
}

/**
 * Wraps the response body so that every chunk (heartbeats included) counts
 * as a sign of life, and errors the body after `staleAfterMs` of silence;
 * fetchEventSource then treats it as a dropped connection and retries with
 * Last-Event-ID.
 */
function withWatchdog(
  fetchFn: typeof fetch,
  staleAfterMs: number,
): typeof fetch {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (!response.ok || !response.body) return response;
    let lastActivity = Date.now();
    let timer: ReturnType<typeof setInterval> | undefined;
    const stop = () => {
      if (timer !== undefined) clearInterval(timer);
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start(controller) {
          timer = setInterval(() => {
            if (Date.now() - lastActivity > staleAfterMs) {
              stop();
              controller.error(
                new RetriableError(
                  `no data for ${Math.round(staleAfterMs / 1000)} s`,
                ),
              );
            }
          }, Math.max(250, Math.floor(staleAfterMs / 3)));
        },
        transform(chunk, controller) {
          lastActivity = Date.now();
          controller.enqueue(chunk);
        },
        flush: stop,
      }),
    );
    init?.signal?.addEventListener('abort', stop);
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function dispatch(
  message: EventSourceMessage,
  handlers: PlatformFeedHandlers,
  cluster: string | undefined,
) {
  if (message.event === 'snapshot') {
    const data = JSON.parse(message.data) as SnapshotEvent;
    handlers.onSnapshot(Array.isArray(data.items) ? data.items : []);
  } else if (CHANGE_TYPES.has(message.event)) {
    const data = JSON.parse(message.data) as Partial<PlatformChangeEvent> & {
      platform?: InferencePlatformV1beta1;
    };
    if (!data.platform?.metadata?.name) return;
    handlers.onChange({
      // A backend predating clusters sends none: its only (default) one.
      cluster: typeof data.cluster === 'string' ? data.cluster : cluster ?? '',
      type: (data.type ?? message.event) as PlatformEventType,
      platform: data.platform,
    });
  }
  // `reset` needs no action: the backend follows it with a fresh snapshot.
}

/**
 * Follows the backend's SSE feed until `signal` aborts. Reconnects with
 * exponential backoff; fetchEventSource resends the last `id:` it saw as
 * Last-Event-ID so the backend can resume instead of resending everything.
 */
export async function streamPlatformEvents(
  options: StreamPlatformEventsOptions,
): Promise<void> {
  const { handlers, signal } = options;
  const backoff = options.backoff ?? defaultBackoff;
  const offlineAfter = options.offlineAfterAttempts ?? 4;
  let attempt = 0;
  const report = (status: ConnectionStatus) => {
    if (!signal.aborted) handlers.onStatus(status);
  };

  report({ state: 'connecting', attempt: 0 });
  try {
    await fetchEventSource(options.url, {
      signal,
      fetch: withWatchdog(options.fetch, options.staleAfterMs ?? 45_000),
      // A dashboard left in a background tab should still be current when
      // the user comes back, and resuming costs one idle stream.
      openWhenHidden: true,
      async onopen(response) {
        const type = response.headers.get('content-type') ?? '';
        if (response.ok && type.startsWith('text/event-stream')) {
          attempt = 0;
          report({ state: 'live', attempt: 0 });
          return;
        }
        const reason = await describeFailure(response);
        // 401 may be an expired token that fetchApi refreshes on the next try.
        if (
          response.status === 401 ||
          response.status === 429 ||
          response.status >= 500
        ) {
          throw new RetriableError(reason);
        }
        if (response.status === 403) {
          throw new FatalError(
            `You are not allowed to read inference platforms (${reason}); ask an administrator for the inference-platform.read permission.`,
          );
        }
        if (response.status === 404) {
          throw new FatalError(
            `The inference-platform backend plugin is not installed on this Backstage backend (${reason}).`,
          );
        }
        throw new FatalError(
          `The event feed answered ${reason}${
            response.ok ? ` with content type "${type}"` : ''
          }.`,
        );
      },
      onmessage(message) {
        try {
          dispatch(message, handlers, options.cluster);
        } catch {
          // A malformed event cannot be applied; the next snapshot or change
          // of the same platform repairs the view, so keep the stream.
        }
      },
      onclose() {
        // The backend never ends the stream on purpose (restart, deploy):
        // reconnect and resume.
        throw new RetriableError('the backend closed the stream');
      },
      onerror(err) {
        if (err instanceof FatalError || signal.aborted) throw err;
        attempt += 1;
        const delay = backoffDelay(attempt, backoff, options.random);
        const browserOffline =
          typeof navigator !== 'undefined' && navigator.onLine === false;
        report({
          state:
            attempt >= offlineAfter || browserOffline
              ? 'offline'
              : 'reconnecting',
          attempt,
          retryAt: Date.now() + delay,
          error: errorMessage(err),
        });
        return delay;
      },
    });
  } catch (err) {
    report({
      state: 'offline',
      attempt,
      error: errorMessage(err),
      fatal: true,
    });
  }
}
