import { Logger } from '../logger';
import type { PendingEvent } from '../events/PendingEvent';
import { containerInstance, InferenceServerState, ModelReloadError, ReloadServerModel } from './InferenceServerStates';

/**
 * A server that could not load the desired model: it keeps serving the one it has.
 *
 * @public
 */
export interface ReloadFailure {
  pod: string;
  url: string;
  message: string;
  /** Refused by the server for good (e.g. another embedding dimension), not a failed fetch. */
  rejected: boolean;
}

interface Attempt {
  /** The container instance asked: pod uid and restart count. */
  instance: string;
  url: string;
  at: number;
  failure?: ReloadFailure;
  /** The failure's Event is recorded (by the pass after it). */
  reported?: boolean;
}

/**
 * Hot reload of a new model (spec.inference.modelUpdate: HotReload): the
 * operator asks each ready server that serves another model than the spec
 * names to load it (`POST /v1/model/reload {modelUrl}`; the server fetches
 * it, loads it beside the old one, runs it once and swaps), one server of a
 * platform at a time so the fleet never loads all at once. What each server
 * serves is read back from the servers themselves. A server that fails keeps
 * its model; it is asked again after `retryMs` (never again for the same
 * URL when it refused the model), and the failure is in the status.
 */
export class ModelHotReload {
  private readonly attempts = new Map<string, Map<string, Attempt>>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly o: {
      reload: ReloadServerModel;
      /** The server was told to change: ask it again about itself. */
      invalidate: (platformKey: string, pod: string) => void;
      requeue: (platformKey: string) => void;
      logger: Logger;
      retryMs?: number;
      now?: () => number;
    },
  ) {}

  forget(platformKey: string): void {
    this.attempts.delete(platformKey);
  }

  /**
   * Starts the next reload when none is running, and returns the current
   * failures for `url` of the servers that still exist.
   */
  step(
    platformKey: string,
    p: { metadata: { name?: string; namespace?: string } },
    url: string,
    pods: any[],
    servers: Record<string, InferenceServerState>,
    port: number,
    timeoutMs: number,
    events: PendingEvent[],
  ): ReloadFailure[] {
    const now = this.o.now?.() ?? Date.now();
    const attempts = this.attempts.get(platformKey) ?? new Map<string, Attempt>();
    // Forget servers that are gone and attempts at another URL.
    for (const [pod, a] of attempts) {
      if (a.url !== url || !pods.some(x => x.metadata.name === pod && containerInstance(x) === a.instance)) attempts.delete(pod);
    }
    this.attempts.set(platformKey, attempts);
    const failures = [...attempts.values()].flatMap(a => (a.failure ? [a.failure] : []));
    for (const a of attempts.values()) {
      if (!a.failure || a.reported) continue;
      a.reported = true;
      events.push(['Warning', a.failure.rejected ? 'ModelRejected' : 'ModelReloadFailed', `${a.failure.pod} keeps its model: ${a.failure.message}`]);
    }
    if (this.inFlight.has(platformKey)) return failures;
    const due = pods
      .filter(pod => {
        const state = servers[pod.metadata.name];
        if (!state?.modelUrl || state.modelUrl === url) return false;
        const a = attempts.get(pod.metadata.name);
        return !a || (!a.failure?.rejected && now - a.at >= (this.o.retryMs ?? 300_000));
      })
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const pod = due[0];
    if (!pod) return failures;
    const name = pod.metadata.name;
    const from = servers[name].modelUrl;
    const attempt: Attempt = { instance: containerInstance(pod), url, at: now };
    attempts.set(name, attempt);
    this.inFlight.add(platformKey);
    events.push(['Normal', 'ReloadingModel', `Asked ${name} to load model ${url} (serving ${from})`]);
    this.o.logger.info('Reloading model', { name: p.metadata.name, namespace: p.metadata.namespace, pod: name, url });
    this.o
      .reload(pod, port, url, timeoutMs)
      .then(
        () => this.o.logger.info('Reloaded model', { name: p.metadata.name, namespace: p.metadata.namespace, pod: name, url }),
        (e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          attempt.failure = { pod: name, url, message, rejected: e instanceof ModelReloadError && e.status === 409 };
          this.o.logger.warn('Reloading model failed', { name: p.metadata.name, namespace: p.metadata.namespace, pod: name, url, error: message });
        },
      )
      .finally(() => {
        this.inFlight.delete(platformKey);
        this.o.invalidate(platformKey, name);
        this.o.requeue(platformKey);
      });
    return failures;
  }
}
