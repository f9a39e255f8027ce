import type { Caches } from '../reconcile/ReconcilerOptions';
import type { SharedInformer } from '../runtime/SharedInformers';

/** Caches holding the given objects (by kind), for a tier's plan without an API server. */
export function fakeCaches(objects: any[] = [], pods: any[] = []): Caches {
  const cacheOf = (kind: string): SharedInformer =>
    ({
      get: (namespace: string, name: string) => objects.find(o => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name),
      byIndex: () => (kind === 'Pod' ? pods : objects.filter(o => o.kind === kind)),
      on: () => {},
    }) as unknown as SharedInformer;
  return {
    platforms: cacheOf('InferencePlatform'),
    statefulSets: cacheOf('StatefulSet'),
    deployments: cacheOf('Deployment'),
    services: cacheOf('Service'),
    configMaps: cacheOf('ConfigMap'),
    pvcs: cacheOf('PersistentVolumeClaim'),
    pdbs: cacheOf('PodDisruptionBudget'),
    hpas: cacheOf('HorizontalPodAutoscaler'),
    pods: cacheOf('Pod'),
  };
}
