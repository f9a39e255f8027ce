/**
 * Render counters for the performance script and the re-render tests: a
 * no-op unless the page defines `globalThis.__CV_RENDER_COUNTS__`. Counting
 * in the component itself works in production bundles, where React's
 * <Profiler> callbacks are compiled out.
 */
export function countRender(name: string) {
  const counts = (
    globalThis as { __CV_RENDER_COUNTS__?: Record<string, number> }
  ).__CV_RENDER_COUNTS__;
  if (counts) counts[name] = (counts[name] ?? 0) + 1;
}
