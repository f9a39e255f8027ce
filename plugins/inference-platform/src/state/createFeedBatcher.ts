import {
  InferencePlatformV1beta1,
  PlatformChangeEvent,
} from '@cv-platform/plugin-inference-platform-common';
import { PlatformsState } from './PlatformsState';
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
 * a frame matters, as each carries the whole object.
 */
export function createFeedBatcher(
  state: PlatformsState,
  schedule: Schedule = nextFrame,
) {
  const pending = new Map<PlatformKey, PlatformChangeEvent>();
  let cancel: (() => void) | undefined;

  const flush = () => {
    cancel = undefined;
    if (pending.size === 0) return;
    const events = [...pending.values()];
    pending.clear();
    state.applyChanges(events);
  };

  return {
    change(event: PlatformChangeEvent) {
      pending.set(platformKey(event.platform), event);
      cancel ??= schedule(flush);
    },
    /** A snapshot supersedes whatever was pending and applies at once. */
    snapshot(items: InferencePlatformV1beta1[]) {
      pending.clear();
      cancel?.();
      cancel = undefined;
      state.applySnapshot(items);
    },
    dispose() {
      cancel?.();
      cancel = undefined;
      pending.clear();
    },
  };
}
