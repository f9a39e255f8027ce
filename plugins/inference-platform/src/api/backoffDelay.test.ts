import { backoffDelay } from './backoffDelay';

describe('backoffDelay', () => {
  const opts = { baseMs: 1000, maxMs: 30_000, jitter: 0.2 };

  it('doubles per attempt and caps at the maximum', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map(a => backoffDelay(a, opts, mid))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
  });

  it('spreads delays by the jitter but never beyond the cap', () => {
    expect(backoffDelay(1, opts, () => 0)).toBe(800);
    expect(backoffDelay(1, opts, () => 1)).toBe(1200);
    expect(backoffDelay(10, opts, () => 1)).toBe(30000);
  });
});
