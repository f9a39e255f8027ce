import { CronExpressionParser } from 'cron-parser';

/**
 * The first run of a cron schedule (UTC) strictly after `after`. Throws with
 * the parser's reason (e.g. "Constraint error, got value 61 expected range
 * 0-59") for a schedule the CRD's pattern let through.
 */
export function nextScheduleTime(schedule: string, after: Date): Date {
  // cron-parser counts from the next whole second; a run exactly at `after` is not "after".
  const expression = CronExpressionParser.parse(schedule, { currentDate: new Date(after.getTime() + 1), tz: 'UTC' });
  return expression.next().toDate();
}

/** "30d", "168h", "1d12h", "90m" -> milliseconds (the CRD's DURATION_PATTERN). */
export function parseRetentionAge(text: string): number {
  const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };
  let total = 0;
  let rest = text;
  while (rest) {
    const m = /^(\d+)([dhm])/.exec(rest);
    if (!m) throw new Error(`retention.maxAge ${JSON.stringify(text)} is not a duration such as 168h or 30d`);
    total += Number(m[1]) * unit[m[2]];
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** A backup's id: its start time, sortable and readable (20261204-081500). */
export function backupId(at: Date): string {
  return at.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}
