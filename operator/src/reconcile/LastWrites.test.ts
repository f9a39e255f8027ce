import { LastWrites } from './LastWrites';

describe('LastWrites', () => {
  it('answers with the write while the cache still shows the replaced version', () => {
    const w = new LastWrites<string>();
    w.remember('sts/ns/a', '10', '11', 'hash-1');
    expect(w.pending('sts/ns/a', '10')).toBe('hash-1');
    expect(w.pending('sts/ns/a', '11')).toBe('hash-1');
  });

  it('treats a create as pending while the cache has no object', () => {
    const w = new LastWrites<string>();
    w.remember('sts/ns/a', undefined, '5', 'hash-1');
    expect(w.pending('sts/ns/a', undefined)).toBe('hash-1');
  });

  it('drops the entry once the cache shows a version written by someone else', () => {
    const w = new LastWrites<string>();
    w.remember('sts/ns/a', '10', '11', 'hash-1');
    expect(w.pending('sts/ns/a', '12')).toBeUndefined();
    expect(w.pending('sts/ns/a', '10')).toBeUndefined();
    expect(w.size).toBe(0);
  });

  it('forgets an object once its informer has delivered a change', () => {
    const w = new LastWrites<string>();
    w.remember('sts/ns/a', undefined, '5', 'hash-1');
    w.observed('sts/ns/a');
    // Created and deleted again before a pass saw it: the cache is right.
    expect(w.pending('sts/ns/a', undefined)).toBeUndefined();
  });

  it('ignores a write the API server answered with the same version', () => {
    const w = new LastWrites<string>();
    w.remember('sts/ns/a', '10', '10', 'hash-1');
    expect(w.pending('sts/ns/a', '10')).toBeUndefined();
  });
});
