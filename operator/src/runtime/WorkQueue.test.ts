import { WorkQueue } from './WorkQueue';
import { BucketRateLimiter, ItemExponentialRateLimiter, MaxOfRateLimiter } from './RateLimiter';

describe('WorkQueue', () => {
  it('deduplicates items waiting in the queue', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands an item to two workers; re-adds during processing run after done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const item = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    const second = q.get();
    let handed = false;
    second.then(() => (handed = true));
    await Promise.resolve();
    expect(handed).toBe(false);
    q.done(item!);
    expect(await second).toBe('a');
  });

  it('releases a waiting get when its signal aborts, without losing later items', async () => {
    const q = new WorkQueue();
    const ac = new AbortController();
    const waiting = q.get(ac.signal);
    ac.abort();
    expect(await waiting).toBeUndefined();
    q.add('x');
    expect(await q.get()).toBe('x');
  });

  it('shuts down waiting workers', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
  });

  it('adds after a delay, keeping the earliest pending delay', async () => {
    jest.useFakeTimers();
    const q = new WorkQueue();
    q.addAfter('a', 1000);
    q.addAfter('a', 5000);
    jest.advanceTimersByTime(999);
    expect(q.length).toBe(0);
    jest.advanceTimersByTime(1);
    expect(q.length).toBe(1);
    jest.useRealTimers();
  });

  describe('addBatched', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('hands out the changes of one window once', async () => {
      const q = new WorkQueue();
      q.addBatched('a', 500);
      jest.advanceTimersByTime(300);
      q.addBatched('a', 500);
      q.addBatched('b', 500);
      jest.advanceTimersByTime(199);
      expect(q.length).toBe(0);
      jest.advanceTimersByTime(1);
      expect(q.length).toBe(1);
      const a = await q.get();
      expect(a).toBe('a');
      q.done(a!);
      jest.advanceTimersByTime(300);
      expect(q.length).toBe(1);
      expect(await q.get()).toBe('b');
      jest.advanceTimersByTime(10_000);
      expect(q.length).toBe(0);
      expect(q.adds).toBe(2);
    });

    it('adds nothing for an item already waiting, and drops the timer of an item handed out before it fires', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.addBatched('a', 500);
      q.addBatched('b', 500);
      q.add('b');
      expect(await q.get()).toBe('a');
      q.done('a');
      expect(await q.get()).toBe('b');
      q.done('b');
      jest.advanceTimersByTime(10_000);
      expect(q.length).toBe(0);
    });

    it('adds again an item being processed: the pass under way may have read the world before the change', async () => {
      const q = new WorkQueue();
      q.add('a');
      const item = await q.get();
      q.addBatched('a', 500);
      jest.advanceTimersByTime(500);
      expect(q.length).toBe(0);
      q.done(item!);
      expect(q.length).toBe(1);
    });

    it('stops its timers at shutdown', () => {
      const q = new WorkQueue();
      q.addBatched('a', 500);
      q.shutDown();
      jest.advanceTimersByTime(1000);
      expect(q.length).toBe(0);
    });
  });
});

describe('rate limiters', () => {
  it('backs off exponentially per item from 5 ms and forgets on success', () => {
    const l = new ItemExponentialRateLimiter(5, 1000);
    expect([l.when('a'), l.when('a'), l.when('a'), l.when('b')]).toEqual([5, 10, 20, 5]);
    for (let i = 0; i < 20; i++) l.when('a');
    expect(l.when('a')).toBe(1000);
    l.forget('a');
    expect(l.when('a')).toBe(5);
  });

  it('limits overall rate with a token bucket (10 qps, burst 100)', () => {
    let now = 0;
    const l = new BucketRateLimiter(10, 100, () => now);
    const delays = Array.from({ length: 100 }, () => l.when());
    expect(delays.every(d => d === 0)).toBe(true);
    expect(l.when()).toBe(100);
    now += 1000;
    expect(l.when()).toBe(0);
  });

  it('takes the larger delay of its limiters', () => {
    const now = 0;
    const l = new MaxOfRateLimiter(new ItemExponentialRateLimiter(5, 1000), new BucketRateLimiter(10, 1, () => now));
    expect(l.when('a')).toBe(5);
    expect(l.when('a')).toBe(100);
    expect(l.retries('a')).toBe(2);
  });
});
