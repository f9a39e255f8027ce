import { Batcher, QueueFullError } from './Batcher';

/** A batch runner whose batches the test completes by hand. */
function manualRunner() {
  const batches: Array<{
    items: number[];
    resolve: (o: number[]) => void;
    reject: (e: Error) => void;
  }> = [];
  const runBatch = (items: number[]) =>
    new Promise<number[]>((resolve, reject) =>
      batches.push({ items, resolve, reject }),
    );
  return { batches, runBatch };
}

const flush = () => new Promise(r => setImmediate(r));

describe('Batcher', () => {
  afterEach(() => jest.useRealTimers());

  it('sends a full batch at once without waiting for the window', async () => {
    const { batches, runBatch } = manualRunner();
    const sizes: number[] = [];
    const b = new Batcher<number, number>({
      maxBatchSize: 3,
      maxLatencyMs: 60_000,
      maxQueue: 100,
      concurrency: () => 1,
      runBatch,
      onBatch: s => sizes.push(s),
    });
    const results = [1, 2, 3].map(i => b.submit(i));
    expect(batches.map(x => x.items)).toEqual([[1, 2, 3]]);
    batches[0].resolve([10, 20, 30]);
    await expect(Promise.all(results)).resolves.toEqual([10, 20, 30]);
    expect(sizes).toEqual([3]);
  });

  it('sends a partial batch when the oldest request has waited the window', async () => {
    jest.useFakeTimers();
    const { batches, runBatch } = manualRunner();
    const b = new Batcher<number, number>({
      maxBatchSize: 8,
      maxLatencyMs: 5,
      maxQueue: 100,
      concurrency: () => 1,
      runBatch,
    });
    const r = [b.submit(1), b.submit(2)];
    expect(batches).toHaveLength(0);
    jest.advanceTimersByTime(4);
    expect(batches).toHaveLength(0);
    jest.advanceTimersByTime(1);
    expect(batches.map(x => x.items)).toEqual([[1, 2]]);
    batches[0].resolve([1, 4]);
    await expect(Promise.all(r)).resolves.toEqual([1, 4]);
  });

  it('grows batches while all workers are busy and respects the size cap', async () => {
    const { batches, runBatch } = manualRunner();
    const b = new Batcher<number, number>({
      maxBatchSize: 4,
      maxLatencyMs: 0,
      maxQueue: 100,
      concurrency: () => 1,
      runBatch,
    });
    const all = Array.from({ length: 10 }, (_, i) => b.submit(i));
    await flush();
    expect(batches.map(x => x.items)).toEqual([[0]]);
    expect(b.queueDepth).toBe(9);
    batches[0].resolve([0]);
    await flush();
    expect(batches.map(x => x.items.length)).toEqual([1, 4]);
    batches[1].resolve([1, 2, 3, 4]);
    await flush();
    batches[2].resolve([5, 6, 7, 8]);
    await flush();
    batches[3].resolve([9]);
    await expect(Promise.all(all)).resolves.toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(batches.map(x => x.items.length)).toEqual([1, 4, 4, 1]);
    await b.whenIdle();
  });

  it('runs as many batches at once as there are workers', async () => {
    const { batches, runBatch } = manualRunner();
    const b = new Batcher<number, number>({
      maxBatchSize: 2,
      maxLatencyMs: 0,
      maxQueue: 100,
      concurrency: () => 2,
      runBatch,
    });
    for (let i = 0; i < 6; i++) b.submit(i).catch(() => undefined);
    await flush();
    expect(batches.map(x => x.items)).toEqual([[0], [1]]);
  });

  it('with prefetch, hands full batches to busy workers but lets partial ones grow', async () => {
    const { batches, runBatch } = manualRunner();
    const b = new Batcher<number, number>({
      maxBatchSize: 2,
      maxLatencyMs: 60_000,
      maxQueue: 100,
      concurrency: () => 1,
      prefetch: 1,
      runBatch,
    });
    for (let i = 0; i < 7; i++) b.submit(i).catch(() => undefined);
    await flush();
    // One running, one full batch queued behind it; no third while both are out.
    expect(batches.map(x => x.items)).toEqual([[0, 1], [2, 3]]);
    batches[0].resolve([0, 1]);
    await flush();
    expect(batches.map(x => x.items)).toEqual([[0, 1], [2, 3], [4, 5]]);
    batches[1].resolve([2, 3]);
    batches[2].resolve([4, 5]);
    await flush();
    // The last request is a partial batch: it waits for its window on a free worker.
    expect(batches).toHaveLength(3);
    expect(b.queueDepth).toBe(1);
  });

  it('fails fast when the queue is full', async () => {
    const { runBatch } = manualRunner();
    const b = new Batcher<number, number>({
      maxBatchSize: 1,
      maxLatencyMs: 0,
      maxQueue: 2,
      concurrency: () => 1,
      runBatch,
    });
    b.submit(1); // running
    await flush();
    b.submit(2);
    b.submit(3);
    await expect(b.submit(4)).rejects.toBeInstanceOf(QueueFullError);
  });

  it('fails every request of a failed batch and keeps going', async () => {
    const { batches, runBatch } = manualRunner();
    const b = new Batcher<number, number>({
      maxBatchSize: 2,
      maxLatencyMs: 60_000,
      maxQueue: 100,
      concurrency: () => 1,
      runBatch,
    });
    const first = [b.submit(1), b.submit(2)];
    expect(batches[0].items).toEqual([1, 2]);
    batches[0].reject(new Error('boom'));
    for (const p of first) await expect(p).rejects.toThrow('boom');
    const next = [b.submit(3), b.submit(4)];
    await flush();
    batches[1].resolve([3, 4]);
    await expect(Promise.all(next)).resolves.toEqual([3, 4]);
  });

  it('rejects when the runner returns the wrong number of results', async () => {
    const b = new Batcher<number, number>({
      maxBatchSize: 2,
      maxLatencyMs: 60_000,
      maxQueue: 100,
      concurrency: () => 1,
      runBatch: async () => [1],
    });
    await expect(Promise.all([b.submit(1), b.submit(2)])).rejects.toThrow(
      /1 results for 2 inputs/,
    );
  });
});
