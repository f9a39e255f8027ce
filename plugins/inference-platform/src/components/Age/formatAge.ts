/** kubectl-style age: 45s, 12m, 3h, 5d, 2y. */
export function formatAge(fromMs: number, nowMs: number): string {
  if (!fromMs) return '—';
  const s = Math.max(0, Math.floor((nowMs - fromMs) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 730) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}
