import { formatRelative } from './format';

describe('formatRelative', () => {
  const now = Date.parse('2026-12-04T12:00:00Z');
  it('reads past and future times against the page clock, which may lag by a tick', () => {
    expect(formatRelative(now - 3 * 3600_000, now)).toBe('3h ago');
    expect(formatRelative(now + 5 * 3600_000, now)).toBe('in 5h');
    // Written a few seconds after the clock last ticked: it has passed.
    expect(formatRelative(now + 5_000, now)).toBe('just now');
  });
});
