import { InferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { foldCreated, PendingEvent } from '../events/PendingEvent';
import { InferenceTier } from '../inferenceTier/InferenceTier';
import { rfc3339Seconds } from '../kube/rfc3339Seconds';
import { QdrantTier } from '../qdrantTier/QdrantTier';
import type { InformerEventType } from '../runtime/Informer';
import type { SharedInformer } from '../runtime/SharedInformers';
import { computeStatus } from '../status/computeStatus';
import { ChildWriter } from './ChildWriter';
import { names } from './labels';
import { LastWrites } from './LastWrites';
import { PODS_BY_PLATFORM, ReconcileResult, ReconcilerOptions } from './ReconcilerOptions';
import { StatusWriter } from './StatusWriter';
import { soonest } from './TierPlan';

export { ANNOTATION_APPLIED_HASH, PODS_BY_PLATFORM, PVCS_BY_PLATFORM } from './ReconcilerOptions';
export type { Caches, ReconcileResult, ReconcilerOptions } from './ReconcilerOptions';
export { reconcilerOwned, significantChange } from './StatusWriter';
export { restartOnNewLeader } from '../inferenceTier/restartOnNewLeader';
export { ANNOTATION_STARTED_FOR_MODEL, startPodsForModel } from '../inferenceTier/startPodsForModel';

/**
 * One level-based pass for one platform: read the world from the caches, let
 * each tier say what it wants, apply only what differs (server-side apply
 * with our field manager), delete what no tier wants, then write status once
 * if it changed and record the pass's Events.
 *
 * @public
 */
export class PlatformReconciler {
  private readonly qdrant: QdrantTier;
  private readonly inference: InferenceTier;
  private readonly children: ChildWriter;
  private readonly status: StatusWriter;
  /** Per settled platform: when Qdrant and its inference servers are asked again (see lookAgain). */
  private readonly lookAgainTimers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly o: ReconcilerOptions) {
    this.qdrant = new QdrantTier(o);
    this.inference = new InferenceTier(o);
    // One memory of writes the caches may not show yet, for children and statuses alike.
    const lastWrites = new LastWrites<unknown>();
    this.children = new ChildWriter(o, lastWrites);
    this.status = new StatusWriter(o, lastWrites);
    const { platforms, pods, ...children } = o.caches;
    for (const cache of Object.values(children)) if (cache) this.observeChildren(cache);
    platforms.on((_type, obj) => this.status.observed(obj));
  }

  /** Children of this kind that the caches show need no longer be remembered as written. */
  observeChildren(cache: SharedInformer): void {
    cache.on((type, obj) => this.children.observed(type, obj));
  }

  /** Whether a child's (or pod's) watch event can change what a pass does or reports. */
  needsPass(type: InformerEventType, obj: any, old?: any): boolean {
    return this.children.needsPass(type, obj, old);
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const [namespace, name] = key.split('/');
    const { caches, logger } = this.o;
    const p: InferencePlatform | undefined = caches.platforms.get(namespace, name);
    if (!p || p.metadata.deletionTimestamp) {
      // Children carry owner references; the garbage collector removes them.
      this.forget(key);
      return {};
    }
    const spec = withDefaults(p.spec);
    const pods = caches.pods.byIndex(PODS_BY_PLATFORM, key);
    const qdrant = await this.qdrant.plan(key, p, spec, pods);
    const inference = this.inference.plan(key, p, spec, pods, qdrant.ready, qdrant.clusterInfo);
    // Events are recorded once the pass has written everything, so they do
    // not compete with the applies and the status write for the API server.
    const events: PendingEvent[] = [];
    const children = [...qdrant.children, ...inference.children];
    for (const mutate of this.o.childMutators ?? []) for (const child of children) mutate(child.obj, p);
    try {
      let reconcileError: string | undefined;
      await qdrant.recreate?.();
      // Children are independent objects: apply them concurrently.
      const results = await Promise.allSettled(children.map(child => this.children.apply(child, events)));
      results.forEach((r, i) => {
        if (r.status === 'fulfilled' || reconcileError) return;
        const { obj } = children[i];
        reconcileError = `${obj.kind} ${obj.metadata.name}: ${r.reason instanceof Error ? r.reason.message : r.reason}`;
        logger.error(`Failed to apply ${obj.kind}`, { name: obj.metadata.name, namespace, error: String(r.reason) });
        events.push(['Warning', 'ApplyFailed', reconcileError]);
      });
      if (!reconcileError) for (const removal of [...qdrant.removals, ...inference.removals]) await this.children.remove(p, removal, events);
      const applied = new Set(children.filter((_, i) => results[i].status === 'fulfilled'));
      const observed = { ...inference.settle(child => applied.has(child)), ...qdrant.observed(), reconcileError };
      const status = computeStatus(p, inference.statusSpec, observed, rfc3339Seconds(this.o.now?.() ?? new Date()));
      events.push(...InferenceTier.canaryEvents(p, status));
      const deferMs = await this.status.write(p, status);
      if (reconcileError) throw new Error(reconcileError);
      const waitMs = soonest(deferMs, qdrant.waitMs, inference.waitMs);
      if (waitMs !== undefined) return { requeueAfterMs: waitMs };
      if (status.phase === 'Failed') return { requeueWithBackoff: true };
      // Ask Qdrant again after the TTL; while it looks unsettled, pass again
      // within 2 s. Only Qdrant's own unrest: a platform waiting for anything
      // else is woken by that thing's watch event, not by polling.
      const qdrantWait = qdrant.afterPass();
      if (typeof qdrantWait === 'number') return { requeueAfterMs: qdrantWait };
      if (qdrantWait === 'settled') this.lookAgainLater(key);
      return {};
    } finally {
      for (const e of foldCreated([...qdrant.events, ...inference.events, ...events])) void this.o.recorder.record(p, ...e);
    }
  }

  /** Stops asking settled platforms' Qdrant and servers again (the workers stop; their restart passes every platform). */
  stopLookingAgain(): void {
    for (const timer of this.lookAgainTimers.values()) clearTimeout(timer);
    this.lookAgainTimers.clear();
  }

  private forget(key: string): void {
    this.qdrant.forget(key);
    this.inference.forget(key);
    this.status.forget(key);
    clearTimeout(this.lookAgainTimers.get(key));
    this.lookAgainTimers.delete(key);
  }

  /**
   * Asks a settled platform's Qdrant and inference servers again, without a
   * pass: only an answer that differs from the last queues one (see
   * ClusterInfoCache and InferenceServerStates). A pass for an unchanged
   * platform rebuilt and compared every child and its status, which made
   * the TTL the largest steady-state cost of many platforms.
   */
  private lookAgain(key: string): void {
    this.lookAgainTimers.delete(key);
    const [namespace, name] = key.split('/');
    const p: InferencePlatform | undefined = this.o.caches.platforms.get(namespace, name);
    if (!p || p.metadata.deletionTimestamp) return;
    const spec = withDefaults(p.spec);
    const sts = this.o.caches.statefulSets.get(namespace, names.qdrant(p));
    this.qdrant.clusterInfo.get(key, p, sts, spec.qdrant.replicas).catch(e => {
      this.o.logger.warn('Asking Qdrant for its cluster state failed', { name, namespace, error: String(e) });
      this.o.requeue?.(key);
    });
    this.inference.lookAgain(key, spec);
    // Qdrant down to no ready peer: the StatefulSet's watch events bring the passes now.
    if (sts?.status?.readyReplicas) this.lookAgainLater(key);
  }

  /** When the platform's cluster-info answer (or the one being asked for) is a TTL old. */
  private lookAgainLater(key: string): void {
    const ttl = this.o.clusterInfoTtlMs ?? 60_000;
    const info = this.qdrant.clusterInfo;
    const answeredAt = info.asking(key) ? Date.now() : info.answeredAt(key) ?? Date.now();
    const ms = Math.max(Math.min(1000, ttl), answeredAt + ttl - Date.now());
    clearTimeout(this.lookAgainTimers.get(key));
    const timer = setTimeout(() => this.lookAgain(key), ms);
    timer.unref?.();
    this.lookAgainTimers.set(key, timer);
  }
}
