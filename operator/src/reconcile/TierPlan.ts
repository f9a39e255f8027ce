import type { PendingEvent } from '../events/PendingEvent';
import type { ResourceRef } from '../kube/KubeClient';
import type { SharedInformer } from '../runtime/SharedInformers';

/** A child a tier wants to exist as given (applied only when it differs from the cache). */
export type Child = { obj: any; ref: ResourceRef; cache: SharedInformer };

/** A child a tier no longer wants (deleted only when present and owned by the platform). */
export type Removal = { cache: SharedInformer; ref: ResourceRef; name: string };

/**
 * What one concern wants from a pass. The coordinator applies the children,
 * deletes the removals once every apply succeeded, records the events after
 * the status write, and passes again after the shortest wait.
 */
export interface TierPlan {
  children: Child[];
  removals: Removal[];
  events: PendingEvent[];
  /** Look again after this long even if no watch event comes (progress outside Kubernetes). */
  waitMs?: number;
}

/** The shortest of the waits that are set. */
export function soonest(...waits: (number | undefined)[]): number | undefined {
  const set = waits.filter((w): w is number => w !== undefined && w !== Infinity);
  return set.length ? Math.min(...set) : undefined;
}
