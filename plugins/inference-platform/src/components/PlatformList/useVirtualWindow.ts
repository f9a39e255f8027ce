import { RefObject, useCallback, useEffect, useRef, useState } from 'react';

export interface VirtualWindow {
  /** First rendered index (inclusive) and last (exclusive). */
  start: number;
  end: number;
  onScroll(): void;
}

/** Rows assumed visible before the container has been measured (jsdom, first paint). */
const FALLBACK_VISIBLE_ROWS = 30;

/**
 * The slice of `count` fixed-height rows to render for a scroll container.
 * A browser keeps re-laying out a 1,000-row table on every change to any
 * row (tens of ms each, 100 times a second); only the rows in view and a
 * margin around them go into the DOM instead.
 */
export function useVirtualWindow(
  container: RefObject<HTMLElement>,
  count: number,
  rowHeight: number,
  enabled: boolean,
  overscan = 10,
): VirtualWindow {
  const [scroll, setScroll] = useState({ top: 0, height: 0 });
  const frame = useRef<number>();

  const measure = useCallback(() => {
    const el = container.current;
    if (!el) return;
    setScroll(prev =>
      prev.top === el.scrollTop && prev.height === el.clientHeight
        ? prev
        : { top: el.scrollTop, height: el.clientHeight },
    );
  }, [container]);

  // One state update per animation frame, however fast scroll events come.
  const onScroll = useCallback(() => {
    if (frame.current !== undefined) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = undefined;
      measure();
    });
  }, [measure]);

  useEffect(() => {
    if (!enabled) return undefined;
    measure();
    window.addEventListener('resize', onScroll);
    return () => {
      window.removeEventListener('resize', onScroll);
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
      frame.current = undefined;
    };
  }, [enabled, measure, onScroll]);

  if (!enabled) return { start: 0, end: count, onScroll };
  const visible =
    scroll.height > 0
      ? Math.ceil(scroll.height / rowHeight)
      : FALLBACK_VISIBLE_ROWS;
  const first = Math.floor(scroll.top / rowHeight);
  const end = Math.min(count, first + visible + overscan);
  // A filter can shrink the list below a stale scroll position.
  const start = Math.max(
    0,
    Math.min(first - overscan, end - visible - overscan),
  );
  return { start, end, onScroll };
}
