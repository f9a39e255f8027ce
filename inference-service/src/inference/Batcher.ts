export interface BatcherOptions<In, Out> {
  maxBatchSize: number;
  /** How long the oldest request may wait for a fuller batch. */
  maxLatencyMs: number;
  /** Requests allowed to wait; beyond it submit() fails fast (bounded memory). */
  maxQueue: number;
  /** Batches that may run at once (the number of workers). */
  concurrency: () => number;
  /**
   * Full batches that may be handed to each busy worker to wait in its own
   * queue, so it starts the next one without a round trip through the event
   * loop. Only full batches: a partial one keeps growing until a worker is free.
   */
  prefetch?: number;
  runBatch: (items: In[]) => Promise<Out[]>;
  onBatch?: (size: number) => void;
}

/** The queue is full: the caller should shed load (HTTP 503). */
export class QueueFullError extends Error {}

interface Pending<In, Out> {
  item: In;
  enqueuedAt: number;
  resolve: (o: Out) => void;
  reject: (e: Error) => void;
}

/**
 * Dynamic batching: a batch goes out when it is full, or when its oldest
 * request has waited maxLatencyMs, and only when a worker is free, so batches
 * grow naturally while the workers are busy.
 */
export class Batcher<In, Out> {
  private queue: Pending<In, Out>[] = [];
  private inFlight = 0;
  private timer?: NodeJS.Timeout;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: BatcherOptions<In, Out>) {}

  get queueDepth(): number {
    return this.queue.length;
  }

  get busy(): boolean {
    return this.queue.length > 0 || this.inFlight > 0;
  }

  submit(item: In): Promise<Out> {
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(
        new QueueFullError(
          `inference queue is full (${this.options.maxQueue})`,
        ),
      );
    }
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ item, enqueuedAt: Date.now(), resolve, reject });
      this.pump();
    });
  }

  /** Resolves once nothing is queued or running. */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise(resolve => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    const { maxBatchSize, maxLatencyMs } = this.options;
    const workers = this.options.concurrency();
    const ahead = workers * (1 + (this.options.prefetch ?? 0));
    while (this.queue.length) {
      if (this.inFlight >= workers) {
        if (this.queue.length < maxBatchSize || this.inFlight >= ahead) break;
        this.launch(this.queue.splice(0, maxBatchSize));
        continue;
      }
      const waited = Date.now() - this.queue[0].enqueuedAt;
      if (this.queue.length < maxBatchSize && waited < maxLatencyMs) {
        this.arm(maxLatencyMs - waited);
        return;
      }
      this.launch(this.queue.splice(0, maxBatchSize));
    }
    if (!this.queue.length && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, Math.max(0, delayMs));
  }

  private launch(batch: Pending<In, Out>[]): void {
    this.inFlight++;
    this.options.onBatch?.(batch.length);
    let results: Promise<Out[]>;
    try {
      results = this.options.runBatch(batch.map(p => p.item));
    } catch (err) {
      results = Promise.reject(err);
    }
    results
      .then(outs => {
        if (outs.length !== batch.length) {
          throw new Error(
            `batch returned ${outs.length} results for ${batch.length} inputs`,
          );
        }
        batch.forEach((p, i) => p.resolve(outs[i]));
      })
      .catch(err =>
        batch.forEach(p =>
          p.reject(err instanceof Error ? err : new Error(String(err))),
        ),
      )
      .finally(() => {
        this.inFlight--;
        this.pump();
        if (!this.busy) for (const w of this.idleWaiters.splice(0)) w();
      });
  }
}
