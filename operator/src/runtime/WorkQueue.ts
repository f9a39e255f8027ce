import { defaultControllerRateLimiter, RateLimiter } from './RateLimiter';

/**
 * client-go's rate-limited work queue: an item is queued at most once (dirty
 * set), an item being processed is never handed to a second worker (processing
 * set) — if it is added meanwhile it is re-queued when done — and retries are
 * delayed by the rate limiter.
 *
 * @public
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** Items added with addBatched, by their timer: a pass handed out before it fires takes the change along. */
  private readonly batched = new Map<string, NodeJS.Timeout>();
  private waiters: Array<(item: string | undefined) => void> = [];
  private shuttingDown = false;
  adds = 0;

  constructor(readonly rateLimiter: RateLimiter = defaultControllerRateLimiter()) {}

  get length(): number {
    return this.queue.length;
  }

  get processingCount(): number {
    return this.processing.size;
  }

  add(item: string): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.adds++;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(item);
      this.handOut(item);
      waiter(item);
    } else {
      this.queue.push(item);
    }
  }

  /** Adds after a delay; an earlier pending delay for the same item wins. */
  addAfter(item: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.timers.get(item);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(item);
      this.add(item);
    }, delayMs);
    timer.unref?.();
    this.timers.set(item, { at, timer });
  }

  /**
   * Adds after `delayMs` what a change of the world wants looked at, so that
   * the changes arriving meanwhile share one hand-out: nothing when the item
   * already waits in the queue or for an earlier batch, and the timer is
   * dropped when the item is handed out before it fires (whoever takes it
   * then sees the change). An item being processed is added again, as the
   * pass under way may have read the world before the change.
   */
  addBatched(item: string, delayMs: number): void {
    if (this.shuttingDown || this.batched.has(item) || (this.dirty.has(item) && !this.processing.has(item))) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const timer = setTimeout(() => {
      this.batched.delete(item);
      this.add(item);
    }, delayMs);
    timer.unref?.();
    this.batched.set(item, timer);
  }

  addRateLimited(item: string): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: string): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: string): number {
    return this.rateLimiter.retries(item);
  }

  /**
   * Next item, or undefined once shut down or when the signal aborts (the
   * caller then owns nothing). Call done(item) when finished with an item.
   */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.queue.length > 0) {
      const item = this.queue.shift()!;
      this.dirty.delete(item);
      this.handOut(item);
      return Promise.resolve(item);
    }
    if (this.shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    return new Promise(resolve => {
      let onAbort = () => {};
      const waiter = (item: string | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(item);
      };
      onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          resolve(undefined);
        }
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  done(item: string): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      // Re-added while processing: hand it out again now.
      this.dirty.delete(item);
      this.add(item);
    }
  }

  private handOut(item: string): void {
    this.processing.add(item);
    const batch = this.batched.get(item);
    if (batch) {
      clearTimeout(batch);
      this.batched.delete(item);
    }
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const timer of this.batched.values()) clearTimeout(timer);
    this.batched.clear();
    this.waiters.splice(0).forEach(w => w(undefined));
  }
}
