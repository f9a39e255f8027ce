import type { InformerEventType } from '../runtime/Informer';
import { isPodReady } from '../status/isPodReady';

/**
 * A serving container stopped, restarted or stopped being ready (the pod's
 * Ready condition follows later). Init containers end by design.
 */
function containerLost(pod: any, old: any): boolean {
  const before = new Map((old.status?.containerStatuses ?? []).map((c: any) => [c.name, c]));
  return (pod.status?.containerStatuses ?? []).some((c: any) => {
    const b: any = before.get(c.name);
    if (!b) return false;
    return (c.restartCount ?? 0) > (b.restartCount ?? 0) || (b.ready && !c.ready) || (!!b.state?.running && !c.state?.running);
  });
}

/**
 * Whether a child's or pod's watch event is bad news: something gone, a pod
 * no longer Ready or a serving container stopped, restarted or no longer
 * ready, a workload counting fewer ready replicas. Such an event is not batched with the ones after it: a server
 * that crashes and is back within the batch window would otherwise never
 * show as Degraded.
 */
export function lostReadiness(type: InformerEventType, obj: any, old?: any): boolean {
  if (type === 'DELETED') return true;
  if (!old) return false;
  if (obj.kind === 'Pod') return (isPodReady(old) && !isPodReady(obj)) || containerLost(obj, old);
  return (obj.status?.readyReplicas ?? 0) < (old.status?.readyReplicas ?? 0);
}
