import { formatAge } from '../Age/formatAge';

/** 1536 -> "1.5 KiB"; undefined -> "—". */
export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "2024-05-02 03:02 UTC": schedules are in UTC, so times are shown in UTC too. */
export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** How far the page's shared clock may lag (it ticks every 30 s). */
const CLOCK_LAG_MS = 30_000;

/** "3h ago" or "in 5h"; a time just past the page's clock has most likely just passed. */
export function formatRelative(ms: number, nowMs: number): string {
  if (ms > nowMs + CLOCK_LAG_MS) return `in ${formatAge(nowMs, ms)}`;
  if (ms > nowMs) return 'just now';
  return `${formatAge(ms, nowMs)} ago`;
}
