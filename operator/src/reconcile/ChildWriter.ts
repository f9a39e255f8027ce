import type { InferencePlatform } from '@cv-platform/inference-platform-api';
import type { PendingEvent } from '../events/PendingEvent';
import { KubeApiError, resourcePath } from '../kube/KubeClient';
import type { InformerEventType } from '../runtime/Informer';
import { ChildEventFilter } from './ChildEventFilter';
import { isSubset } from './isSubset';
import { FIELD_MANAGER } from './labels';
import { LastWrites } from './LastWrites';
import { ANNOTATION_APPLIED_HASH, ReconcilerOptions } from './ReconcilerOptions';
import { shortHash } from './shortHash';
import type { Child, Removal } from './TierPlan';

export const objectId = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace}/${name}`;

/**
 * Writes the children the tiers want: server-side apply with our field
 * manager, skipped when the cache (or a write the cache does not show yet)
 * already has the same content; deletes the ones they no longer want.
 */
export class ChildWriter {
  /** Per child: the live resourceVersion and desired hash last found equal (isSubset is not asked again). */
  private readonly verified = new Map<string, string>();
  private readonly childEvents = new ChildEventFilter();

  constructor(
    private readonly o: Pick<ReconcilerOptions, 'client' | 'logger' | 'metrics'>,
    /** Applied hashes of children (and statuses) the caches may not show yet. */
    private readonly lastWrites: LastWrites<unknown>,
  ) {}

  /** A child's watch event: the cache shows it now. */
  observed(type: InformerEventType, obj: any): void {
    const id = objectId(obj.kind, obj.metadata.namespace, obj.metadata.name);
    this.lastWrites.observed(id);
    if (type === 'DELETED') this.verified.delete(id);
  }

  /** Whether a child's (or pod's) watch event can change what a pass does or reports. */
  needsPass(type: InformerEventType, obj: any, old?: any): boolean {
    return this.childEvents.needsPass(objectId(obj.kind, obj.metadata.namespace, obj.metadata.name), type, obj, old);
  }

  async apply(child: Child, events: PendingEvent[]): Promise<void> {
    const { obj, ref, cache } = child;
    const hash = shortHash(JSON.stringify(obj));
    const id = objectId(obj.kind, obj.metadata.namespace, obj.metadata.name);
    const live = cache.get(obj.metadata.namespace, obj.metadata.name);
    const checked = live && `${live.metadata.resourceVersion} ${hash}`;
    if (checked && this.verified.get(id) === checked) return;
    if (live && live.metadata.annotations?.[ANNOTATION_APPLIED_HASH] === hash && isSubset(obj, live)) {
      this.verified.set(id, checked);
      return;
    }
    if (this.lastWrites.pending(id, live?.metadata.resourceVersion) === hash) return;
    const body = {
      ...obj,
      metadata: {
        ...obj.metadata,
        annotations: { ...(obj.metadata.annotations ?? {}), [ANNOTATION_APPLIED_HASH]: hash },
      },
    };
    const written = await this.o.client.apply(resourcePath(ref, obj.metadata.namespace, obj.metadata.name), body, FIELD_MANAGER);
    this.lastWrites.remember(id, live?.metadata.resourceVersion, written?.metadata?.resourceVersion, hash);
    this.childEvents.wrote(id, written?.metadata?.resourceVersion);
    this.o.metrics.writes.inc({ kind: obj.kind, verb: 'apply' });
    const verb = live ? 'Updated' : 'Created';
    const drift = live && live.metadata.annotations?.[ANNOTATION_APPLIED_HASH] === hash;
    this.o.logger.info(`${verb} ${obj.kind}`, {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      ...(drift ? { reason: 'reverted a change made outside the operator' } : {}),
    });
    events.push(['Normal', drift ? 'DriftCorrected' : verb, `${verb} ${obj.kind} ${obj.metadata.name}${drift ? ' (reverted a manual change)' : ''}`]);
  }

  /** Deletes a child the platform owns; one that is gone already or not ours is left alone. */
  async remove(p: InferencePlatform, { cache, ref, name }: Removal, events: PendingEvent[]): Promise<void> {
    const live = cache.get(p.metadata.namespace!, name);
    const ownedByUs = live?.metadata.ownerReferences?.some((r: any) => r.uid === p.metadata.uid);
    if (!live || !ownedByUs) return;
    try {
      await this.o.client.delete(resourcePath(ref, p.metadata.namespace, name));
      this.o.metrics.writes.inc({ kind: ref.kind, verb: 'delete' });
      this.o.logger.info(`Deleted ${ref.kind}`, { name, namespace: p.metadata.namespace });
      events.push(['Normal', 'Deleted', `Deleted ${ref.kind} ${name}`]);
    } catch (e) {
      if (!(e instanceof KubeApiError && e.statusCode === 404)) throw e;
    }
  }
}
