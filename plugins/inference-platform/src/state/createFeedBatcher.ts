import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import { PlatformsState, PlatformUpdate } from './PlatformsState';
import { PlatformKey, platformKey } from './platformKey';

type Schedule = (flush: () => void) => () => void;

/** Once per frame; a hidden tab (no frames) keeps one pending event per platform. */
const nextFrame: Schedule = flush => {
  if (typeof requestAnimationFrame === 'function') {
    const id = requestAnimationFrame(flush);
    return () => cancelAnimationFrame(id);
  }
  const id = setTimeout(flush, 16);
  return () => clearTimeout(id);
};

/**
 * Applies feed events to a PlatformsState at most once per animation frame.
 * At 100 events/s that turns ~100 store updates and React commits a second
 * into ~60, and under load into fewer; only the last event per platform of
 * a frame matters, as each carries the whole object. One batcher serves
 * every stream of a page (one per cluster), so a frame applies them all at
 * once.
 */
export function createFeedBatcher(
  state: PlatformsState,
  schedule: Schedule = nextFrame,
) {
  const pending = new Map<PlatformKey, PlatformUpdate>();
  let cancel: (() => void) | undefined;

  const flush = () => {
    cancel = undefined;
    if (pending.size === 0) return;
    const events = [...pending.values()];
    pending.clear();
    state.applyChanges(events);
  };

  return {
    change(event: PlatformUpdate) {
      pending.set(platformKey(event.platform, event.cluster), event);
      cancel ??= schedule(flush);
    },
    /**
     * A snapshot supersedes whatever was pending for its cluster and applies
     * at once; other clusters' pending changes wait for the frame.
     */
    snapshot(items: InferencePlatformV1beta1[], cluster?: string) {
      for (const [key, event] of pending) {
        if ((event.cluster || undefined) === (cluster || undefined))
          pending.delete(key);
      }
      if (pending.size === 0) {
        cancel?.();
        cancel = undefined;
      }
      state.applySnapshot(items, cluster);
    },
    dispose() {
      cancel?.();
      cancel = undefined;
      pending.clear();
    },
  };
}
