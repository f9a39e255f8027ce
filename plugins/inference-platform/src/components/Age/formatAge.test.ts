import { formatAge } from './formatAge';

describe('formatAge', () => {
  const now = Date.parse('2024-06-01T00:00:00Z');
  it.each([
    [30_000, '30s'],
    [119_000, '119s'],
    [5 * 60_000, '5m'],
    [3 * 3600_000, '3h'],
    [50 * 3600_000, '2d'],
    [800 * 86400_000, '2y'],
  ])('formats %i ms ago as %s', (ago, text) => {
    expect(formatAge(now - ago, now)).toBe(text);
  });

  it('shows a dash for a missing time and never goes negative', () => {
    expect(formatAge(0, now)).toBe('—');
    expect(formatAge(now + 5000, now)).toBe('0s');
  });
});
