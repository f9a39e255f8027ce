import { backupId, nextScheduleTime, parseRetentionAge } from './backupSchedule';

describe('nextScheduleTime', () => {
  it('gives the next run in UTC, strictly after the given time', () => {
    expect(nextScheduleTime('0 3 * * *', new Date('2026-12-04T02:59:59Z')).toISOString()).toBe('2026-12-04T03:00:00.000Z');
    expect(nextScheduleTime('0 3 * * *', new Date('2026-12-04T03:00:00Z')).toISOString()).toBe('2026-12-05T03:00:00.000Z');
    expect(nextScheduleTime('*/15 * * * *', new Date('2026-12-04T08:16:00.500Z')).toISOString()).toBe('2026-12-04T08:30:00.000Z');
    expect(nextScheduleTime('@daily', new Date('2026-12-04T08:00:00Z')).toISOString()).toBe('2026-12-05T00:00:00.000Z');
  });

  it('names what is wrong with a schedule', () => {
    expect(() => nextScheduleTime('61 * * * *', new Date())).toThrow(/61/);
  });
});

describe('parseRetentionAge', () => {
  it('reads days, hours and minutes', () => {
    expect(parseRetentionAge('30d')).toBe(30 * 86_400_000);
    expect(parseRetentionAge('1d12h')).toBe(36 * 3_600_000);
    expect(parseRetentionAge('90m')).toBe(90 * 60_000);
    expect(() => parseRetentionAge('1w')).toThrow(/168h/);
  });
});

describe('backupId', () => {
  it('is the start time, to the second', () => {
    expect(backupId(new Date('2026-12-04T08:15:07.123Z'))).toBe('20261204-081507');
  });
});
