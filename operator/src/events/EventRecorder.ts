import { rfc3339Seconds } from '../kube/rfc3339Seconds';
import { KubeClient } from '../kube/KubeClient';
import { Logger, noopLogger } from '../logger';

/** @public */
export type EventType = 'Normal' | 'Warning';

/** @public */
export interface EventRecorderOptions {
  /** A repeat within this window bumps the existing Event. Default 10 min. */
  windowMs?: number;
  /** Events one object may burst before the spam filter holds back. Default 25 (client-go's). */
  burst?: number;
  /** One more Event allowed per this long once the burst is spent. Default 5 min (client-go's). */
  refillMs?: number;
  /** Distinct messages of one reason per window before they are combined. Default 10 (client-go's). */
  similarMax?: number;
  now?: () => number;
}

interface Recorded {
  name: string;
  count: number;
  at: number;
}

const COMBINED = '(combined from similar events): ';

/**
 * Records core/v1 Events on an object, as `kubectl describe` shows them, the
 * way client-go's recorder keeps them few: a repeat of the same reason and
 * message within the window bumps the count of the existing Event; more than
 * `similarMax` different messages of one reason within the window go into one
 * combined Event; and a per-object token bucket drops what an object emits
 * beyond a burst, so a flapping platform cannot flood the API server.
 *
 * @public
 */
export class EventRecorder {
  private readonly recent = new Map<string, Recorded>();
  private readonly similar = new Map<string, { messages: Set<string>; since: number }>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly windowMs: number;
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly similarMax: number;
  private readonly now: () => number;
  /** Events the spam filter held back. */
  dropped = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly component: string,
    private readonly logger: Logger = noopLogger,
    options: EventRecorderOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 10 * 60_000;
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 5 * 60_000;
    this.similarMax = options.similarMax ?? 10;
    this.now = options.now ?? Date.now;
  }

  private allowed(uid: string, now: number): boolean {
    const b = this.buckets.get(uid) ?? { tokens: this.burst, at: now };
    const refilled = Math.floor((now - b.at) / this.refillMs);
    if (refilled > 0) {
      b.tokens = Math.min(this.burst, b.tokens + refilled);
      b.at += refilled * this.refillMs;
    }
    if (b.tokens <= 0) {
      this.buckets.set(uid, b);
      return false;
    }
    b.tokens--;
    this.buckets.set(uid, b);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value!);
    return true;
  }

  /** The message to record: itself, or the combined one once a reason has too many. */
  private aggregate(groupKey: string, message: string, now: number): string {
    let g = this.similar.get(groupKey);
    if (!g || now - g.since >= this.windowMs) {
      g = { messages: new Set(), since: now };
      this.similar.set(groupKey, g);
      if (this.similar.size > 10_000) this.similar.delete(this.similar.keys().next().value!);
    }
    g.messages.add(message);
    return g.messages.size > this.similarMax ? COMBINED : message;
  }

  async record(obj: any, type: EventType, reason: string, message: string): Promise<void> {
    const ns = obj.metadata.namespace ?? 'default';
    const now = this.now();
    const group = `${obj.metadata.uid}/${type}/${reason}`;
    const aggregated = this.aggregate(group, message, now);
    const combined = aggregated === COMBINED;
    const key = combined ? `${group}/${COMBINED}` : `${group}/${message}`;
    const shown = combined ? `${COMBINED}${message}` : message;
    const prev = this.recent.get(key);
    const repeat = prev && now - prev.at < this.windowMs;
    // Repeats only bump a count; new Events spend the object's tokens.
    if (!repeat && !this.allowed(obj.metadata.uid, now)) {
      this.dropped++;
      this.logger.debug?.(`event ${reason} on ${ns}/${obj.metadata.name} held back by the spam filter`);
      return;
    }
    const ts = rfc3339Seconds(new Date(now));
    try {
      if (repeat) {
        prev.count++;
        prev.at = now;
        await this.client.mergePatch(`/api/v1/namespaces/${ns}/events/${prev.name}`, {
          count: prev.count,
          lastTimestamp: ts,
          ...(combined ? { message: shown.slice(0, 1024) } : {}),
        });
        return;
      }
      const name = `${obj.metadata.name}.${now.toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`;
      await this.client.request('POST', `/api/v1/namespaces/${ns}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: ns },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace: ns,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        reason,
        message: shown.slice(0, 1024),
        type,
        source: { component: this.component },
        reportingComponent: this.component,
        reportingInstance: this.component,
        firstTimestamp: ts,
        lastTimestamp: ts,
        count: 1,
      });
      this.recent.set(key, { name, count: 1, at: now });
      if (this.recent.size > 10_000) this.recent.delete(this.recent.keys().next().value!);
    } catch (e) {
      // Events are best effort; losing one must never fail a reconcile.
      this.logger.warn(`could not record event ${reason}: ${e instanceof Error ? e.message : e}`);
    }
  }
}
