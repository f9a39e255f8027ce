/** @public */
export interface RateLimiter {
  /** Delay before the item may be processed again. */
  when(item: string): number;
  forget(item: string): void;
  retries(item: string): number;
}

/**
 * Per-item exponential backoff: base * 2^failures, capped.
 *
 * @public
 */
export class ItemExponentialRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}

  when(item: string): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(item: string) {
    this.failures.delete(item);
  }

  retries(item: string) {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * Overall token bucket: `qps` sustained, `burst` at once; returns the wait for the next token.
 *
 * @public
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  when(): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  forget() {}

  retries() {
    return 0;
  }
}

/**
 * The larger of several limiters' delays (client-go's MaxOfRateLimiter).
 *
 * @public
 */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(item: string): number {
    return Math.max(...this.limiters.map(l => l.when(item)));
  }

  forget(item: string) {
    this.limiters.forEach(l => l.forget(item));
  }

  retries(item: string) {
    return Math.max(...this.limiters.map(l => l.retries(item)));
  }
}

/** @public */
export function defaultControllerRateLimiter(): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialRateLimiter(5, 1_000_000),
    new BucketRateLimiter(10, 100),
  );
}
