import type { InferencePlatform } from '@cv-platform/inference-platform-api';
import type { PendingEvent } from '../events/PendingEvent';
import { KubeApiError, KubeClient, resourcePath } from '../kube/KubeClient';
import type { Logger } from '../logger';
import type { OperatorMetrics } from '../metrics/OperatorMetrics';
import { PVCS_BY_PLATFORM } from '../reconcile/ReconcilerOptions';
import type { Recreation } from '../reconcile/statefulSetRecreation';
import { Resources, SharedInformer } from '../runtime/SharedInformers';

/**
 * Immutable fields of the Qdrant StatefulSet changed: expand grown volumes
 * in place, then delete the StatefulSet with orphan propagation, so that
 * its pods keep running and its PVCs stay; the next pass creates it again
 * and it adopts them.
 */
export async function recreateStatefulSet(
  o: { client: KubeClient; pvcs: SharedInformer; metrics: OperatorMetrics; logger: Logger },
  p: InferencePlatform,
  live: any,
  r: Recreation,
  events: PendingEvent[],
): Promise<void> {
  const namespace = p.metadata.namespace!;
  const name = live.metadata.name;
  for (const { template, storage } of r.grown) {
    const claim = new RegExp(`^${template}-${name}-\\d+$`);
    for (const pvc of o.pvcs.byIndex(PVCS_BY_PLATFORM, `${namespace}/${p.metadata.name}`).filter(x => claim.test(x.metadata.name))) {
      try {
        await o.client.mergePatch(resourcePath(Resources.pvcs, namespace, pvc.metadata.name), {
          spec: { resources: { requests: { storage } } },
        });
        o.metrics.writes.inc({ kind: 'PersistentVolumeClaim', verb: 'patch' });
        o.logger.info('Expanding PersistentVolumeClaim', { name: pvc.metadata.name, namespace, storage });
        events.push(['Normal', 'ExpandingVolume', `Expanding PersistentVolumeClaim ${pvc.metadata.name} to ${storage}`]);
      } catch (e) {
        // Not every StorageClass allows expansion: new peers still get the new size.
        const message = e instanceof KubeApiError ? e.body?.message ?? e.message : String(e);
        events.push(['Warning', 'VolumeExpansionFailed', `PersistentVolumeClaim ${pvc.metadata.name} stays at its size: ${message}`]);
      }
    }
  }
  try {
    await o.client.delete(resourcePath(Resources.statefulSets, namespace, name), 'Orphan', { uid: live.metadata.uid });
  } catch (e) {
    // Already gone (404) or already re-created (409 on the uid precondition).
    if (!(e instanceof KubeApiError && (e.statusCode === 404 || e.statusCode === 409))) throw e;
    return;
  }
  o.metrics.writes.inc({ kind: 'StatefulSet', verb: 'delete' });
  o.logger.info('Recreating StatefulSet', { name, namespace, reason: r.reason });
  events.push(['Normal', 'RecreatingStatefulSet', `Re-creating StatefulSet ${name}, keeping its pods and volumes: ${r.reason}`]);
}
