import { KubeApiError, KubeClient, resourcePath, ResourceRef, WatchDecodeError } from '../kube/KubeClient';
import { Logger, noopLogger } from '../logger';

/** @public */
export type InformerEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
/** @public */
export type InformerHandler = (type: InformerEventType, obj: any, old?: any) => void;

/** @public */
export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Reduces each object before it is cached (memory: keep only what is read). */
  transform?: (obj: any) => any;
  /**
   * Secondary indexes, as client-go's Indexers: a name mapped to a function giving an
   * object's index value. Lookups by them cost the matches, not the cache size.
   */
  indexers?: Record<string, (obj: any) => string | undefined>;
  logger?: Logger;
  /** Backoff bounds for restarts after watches that fail quickly. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * The server-side timeout asked of each watch; the server then ends the
   * stream cleanly and it resumes from the last resourceVersion. Default: a
   * random 240..300 s, so informers do not all reconnect at once.
   */
  watchTimeoutSeconds?: number;
  /**
   * A watch that ran this long before it failed was healthy: the failure
   * resets the backoff and the watch resumes at once (client-go's reflector
   * backs off failures that come quickly, not the end of a long stream).
   * Default 30 s.
   */
  healthyWatchMs?: number;
  /** Called for every LIST and every end of a watch, for metrics. */
  observer?: InformerObserver;
}

/**
 * Why a watch ended: the server's timeout, a dropped connection, 410 Gone, or an error the server sent.
 *
 * @public
 */
export type WatchEndReason = 'timeout' | 'transport' | 'gone' | 'error';

/** @public */
export interface InformerObserver {
  listed(ref: ResourceRef, namespace: string | undefined): void;
  watchEnded(ref: ResourceRef, namespace: string | undefined, reason: WatchEndReason): void;
}

/**
 * Whether a failure means the cache may have missed events. A dropped
 * connection, a throttled or unavailable server do not: the cache is exact up
 * to the last resourceVersion, and a watch from there resumes it (a too-old
 * version comes back as 410 Gone, which does relist).
 */
function needsRelist(e: unknown): boolean {
  if (e instanceof WatchDecodeError) return true;
  if (e instanceof KubeApiError) return !(e.statusCode === 429 || e.statusCode >= 500);
  return false;
}

/** @public */
export const objectKey = (o: any) =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>(resolve => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });

/**
 * A list+watch cache of one resource kind under a supervisor. It lists once,
 * then keeps one watch open, resuming from the last resourceVersion whenever
 * the server's timeout or a dropped connection ends it; only 410 Gone or an
 * error that may have lost events (see needsRelist) lists again. Failures
 * that come quickly back off exponentially; the end of a healthy stream does
 * not. Events whose resourceVersion did not change are dropped. Objects in
 * the cache are shared: never mutate them.
 *
 * @public
 */
export class Informer {
  private readonly cache = new Map<string, any>();
  private readonly handlers: InformerHandler[] = [];
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private synced = false;
  private syncedWaiters: Array<() => void> = [];
  private resourceVersion = '';
  /** Failures that were backed off (each logged as a warning). */
  restarts = 0;
  /** LIST passes, the first one included. */
  relists = 0;
  /** Watches reopened from the last resourceVersion without a LIST. */
  watchResumes = 0;
  /** The longest backoff slept so far. */
  maxBackoffMs = 0;

  constructor(
    private readonly client: KubeClient,
    readonly ref: ResourceRef,
    private readonly options: InformerOptions = {},
  ) {}

  on(handler: InformerHandler) {
    this.handlers.push(handler);
  }

  list(): any[] {
    return [...this.cache.values()];
  }

  get(namespace: string | undefined, name: string): any | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  /** Cached objects whose indexer `index` gives `value`. */
  byIndex(index: string, value: string): any[] {
    const keys = this.indices.get(index)?.get(value);
    return keys ? [...keys].map(k => this.cache.get(k)) : [];
  }

  private reindex(key: string, obj: any | undefined, old: any | undefined) {
    for (const [name, fn] of Object.entries(this.options.indexers ?? {})) {
      const before = old ? fn(old) : undefined;
      const after = obj ? fn(obj) : undefined;
      if (before === after) continue;
      let index = this.indices.get(name);
      if (!index) this.indices.set(name, (index = new Map()));
      if (before !== undefined) {
        const set = index.get(before);
        set?.delete(key);
        if (set && !set.size) index.delete(before);
      }
      if (after !== undefined) {
        const set = index.get(after);
        if (set) set.add(key);
        else index.set(after, new Set([key]));
      }
    }
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise(resolve => this.syncedWaiters.push(resolve));
  }

  private emit(type: InformerEventType, obj: any, old?: any) {
    for (const h of this.handlers) {
      try {
        h(type, obj, old);
      } catch (e) {
        (this.options.logger ?? noopLogger).error(`informer handler failed: ${e}`);
      }
    }
  }

  private upsert(input: any) {
    // managedFields is often half an object's size and nothing here reads it.
    if (input.metadata?.managedFields) delete input.metadata.managedFields;
    const obj = this.options.transform ? this.options.transform(input) : input;
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) return;
    this.cache.set(key, obj);
    this.reindex(key, obj, old);
    this.emit(old ? 'MODIFIED' : 'ADDED', obj, old);
  }

  private remove(obj: any) {
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    this.reindex(key, undefined, old);
    this.emit('DELETED', old);
  }

  private async relist(signal: AbortSignal) {
    const params = new URLSearchParams();
    if (this.options.labelSelector) params.set('labelSelector', this.options.labelSelector);
    if (this.options.fieldSelector) params.set('fieldSelector', this.options.fieldSelector);
    const path = resourcePath(this.ref, this.options.namespace);
    const items: any[] = [];
    let cont = '';
    let rv = '';
    do {
      if (cont) params.set('continue', cont);
      params.set('limit', '500');
      const page = await this.client.get(`${path}?${params}`);
      for (const item of page.items ?? []) {
        // List items omit apiVersion/kind; restore them so consumers see whole objects.
        items.push({ apiVersion: this.ref.apiVersion, kind: this.ref.kind, ...item });
      }
      cont = page.metadata?.continue ?? '';
      rv = page.metadata?.resourceVersion ?? rv;
    } while (cont && !signal.aborted);
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(objectKey(item));
      this.upsert(item);
    }
    for (const [key, old] of [...this.cache]) {
      if (!seen.has(key)) {
        this.cache.delete(key);
        this.reindex(key, undefined, old);
        this.emit('DELETED', old);
      }
    }
    this.resourceVersion = rv;
    this.relists++;
    if (!this.synced) {
      this.synced = true;
      this.syncedWaiters.splice(0).forEach(r => r());
    }
  }

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.options.logger ?? noopLogger;
    const { namespace, observer } = this.options;
    const min = this.options.minBackoffMs ?? 200;
    const max = this.options.maxBackoffMs ?? 30_000;
    const healthyMs = this.options.healthyWatchMs ?? 30_000;
    let backoff = 0;
    let needList = true;
    while (!signal.aborted) {
      let watchStarted: number | undefined;
      try {
        if (needList) {
          observer?.listed(this.ref, namespace);
          await this.relist(signal);
          needList = false;
        }
        const timeoutSeconds = this.options.watchTimeoutSeconds ?? 240 + Math.floor(Math.random() * 60);
        const params: Record<string, string> = { resourceVersion: this.resourceVersion, timeoutSeconds: String(timeoutSeconds) };
        if (this.options.labelSelector) params.labelSelector = this.options.labelSelector;
        if (this.options.fieldSelector) params.fieldSelector = this.options.fieldSelector;
        watchStarted = Date.now();
        await this.client.watch(
          resourcePath(this.ref, namespace),
          params,
          ev => {
            if (ev.type === 'BOOKMARK') {
              this.resourceVersion = ev.object?.metadata?.resourceVersion ?? this.resourceVersion;
              return;
            }
            const obj = { apiVersion: this.ref.apiVersion, kind: this.ref.kind, ...ev.object };
            this.resourceVersion = obj.metadata?.resourceVersion ?? this.resourceVersion;
            if (ev.type === 'DELETED') this.remove(obj);
            else this.upsert(obj);
          },
          signal,
          // The server ends the stream at timeoutSeconds; silence well past
          // that means the connection is gone without anyone saying so.
          (timeoutSeconds + 30) * 1000,
        );
        // The server's timeout ended the stream: resume where it stopped.
        this.watchResumes++;
        observer?.watchEnded(this.ref, namespace, 'timeout');
        backoff = 0;
      } catch (e) {
        if (signal.aborted) break;
        const message = e instanceof Error ? e.message : String(e);
        if (e instanceof KubeApiError && e.statusCode === 410) {
          observer?.watchEnded(this.ref, namespace, 'gone');
          log.info(`watch of ${this.ref.kind} expired (410 Gone), relisting`);
          needList = true;
          continue;
        }
        const relist = needsRelist(e);
        if (watchStarted !== undefined) {
          observer?.watchEnded(this.ref, namespace, relist || e instanceof KubeApiError ? 'error' : 'transport');
        }
        // A failed LIST leaves needList set; a failed watch relists only when events may be lost.
        if (relist) needList = true;
        const ranFor = watchStarted === undefined ? 0 : Date.now() - watchStarted;
        if (ranFor >= healthyMs) {
          backoff = 0;
          if (!needList) this.watchResumes++;
          log.info(
            `watch of ${this.ref.kind} ended after ${Math.round(ranFor / 1000)}s (${message}); ${
              needList ? 'relisting' : `resuming from resourceVersion ${this.resourceVersion}`
            }`,
          );
          continue;
        }
        this.restarts++;
        backoff = backoff ? Math.min(max, backoff * 2) : min;
        this.maxBackoffMs = Math.max(this.maxBackoffMs, backoff);
        log.warn(
          `watch of ${this.ref.kind} failed, ${needList ? 'relisting' : 'resuming'} in ${backoff}ms: ${message}`,
        );
        await sleep(backoff, signal);
      }
    }
  }
}
