import { KubeClient, ResourceRef } from '../kube/KubeClient';
import { Logger } from '../logger';
import { Informer, InformerHandler, InformerOptions } from './Informer';

/** @public */
export type SharedInformerOptions = Pick<
  InformerOptions,
  'labelSelector' | 'fieldSelector' | 'transform' | 'indexers' | 'watchTimeoutSeconds' | 'healthyWatchMs' | 'observer'
>;

/**
 * One informer per watched namespace (or one cluster-wide) for a kind, seen
 * as a single cache. Memory is the usual operator OOM, hence the label
 * selector and the namespace restriction.
 *
 * @public
 */
export class SharedInformer {
  readonly informers: Informer[];

  constructor(
    client: KubeClient,
    readonly ref: ResourceRef,
    namespaces: string[] | undefined,
    logger: Logger,
    options: SharedInformerOptions = {},
  ) {
    const scopes = namespaces?.length ? namespaces : [undefined];
    this.informers = scopes.map(ns => new Informer(client, ref, { ...options, namespace: ns, logger }));
  }

  on(handler: InformerHandler) {
    this.informers.forEach(i => i.on(handler));
  }

  get(namespace: string, name: string): any | undefined {
    for (const i of this.informers) {
      const o = i.get(namespace, name);
      if (o) return o;
    }
    return undefined;
  }

  /** Objects whose indexer `index` gives `value` (see InformerOptions.indexers). */
  byIndex(index: string, value: string): any[] {
    return this.informers.length === 1
      ? this.informers[0].byIndex(index, value)
      : this.informers.flatMap(i => i.byIndex(index, value));
  }

  list(filter?: (o: any) => boolean): any[] {
    const all = this.informers.flatMap(i => i.list());
    return filter ? all.filter(filter) : all;
  }

  run(signal: AbortSignal): Promise<void[]> {
    return Promise.all(this.informers.map(i => i.run(signal)));
  }

  waitForSync(): Promise<void[]> {
    return Promise.all(this.informers.map(i => i.waitForSync()));
  }

  get restarts(): number {
    return this.informers.reduce((n, i) => n + i.restarts, 0);
  }

  /** LIST passes over all namespaces, the initial ones included. */
  get relists(): number {
    return this.informers.reduce((n, i) => n + i.relists, 0);
  }

  get watchResumes(): number {
    return this.informers.reduce((n, i) => n + i.watchResumes, 0);
  }

  get maxBackoffMs(): number {
    return Math.max(0, ...this.informers.map(i => i.maxBackoffMs));
  }
}

/** What every slimmed object keeps of its metadata: identity, version and age. */
function identity(m: any) {
  return {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    creationTimestamp: m.creationTimestamp,
  };
}

/**
 * What the portal shows of an Event (reason, message, count, when, about
 * what). The rest (source, reporting fields, series) is dropped; a
 * platform's Events are the largest population in the cache.
 *
 * @public
 */
export function slimEvent(e: any) {
  return {
    apiVersion: e.apiVersion,
    kind: e.kind,
    metadata: identity(e.metadata),
    involvedObject: { kind: e.involvedObject?.kind, name: e.involvedObject?.name, uid: e.involvedObject?.uid },
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count,
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
  };
}

/**
 * The operator reads a PVC it did not apply (Qdrant's, from the StatefulSet's
 * claim templates) only for its owner and phase; the spec is kept only for
 * claims it applies itself, where it is compared with the desired one.
 *
 * @public
 */
export function slimPvc(pvc: any, appliedAnnotation: string) {
  if (pvc.metadata.annotations?.[appliedAnnotation]) return pvc;
  return {
    apiVersion: pvc.apiVersion,
    kind: pvc.kind,
    metadata: {
      ...identity(pvc.metadata),
      deletionTimestamp: pvc.metadata.deletionTimestamp,
      labels: pvc.metadata.labels,
      ownerReferences: pvc.metadata.ownerReferences,
    },
    // Class and size: whether a volume was expanded (ResizeUnsupported);
    // access modes and conditions for the portal's volumes view.
    spec: {
      storageClassName: pvc.spec?.storageClassName,
      accessModes: pvc.spec?.accessModes,
      resources: { requests: { storage: pvc.spec?.resources?.requests?.storage } },
    },
    status: { phase: pvc.status?.phase, capacity: pvc.status?.capacity, conditions: pvc.status?.conditions },
  };
}

/**
 * What the operator and the portal read of a Pod: identity, labels, where it
 * runs and its status. Pod specs are large and many; the rest is dropped.
 *
 * @public
 */
export function slimPod(pod: any) {
  return {
    apiVersion: pod.apiVersion,
    kind: pod.kind,
    metadata: {
      ...identity(pod.metadata),
      deletionTimestamp: pod.metadata.deletionTimestamp,
      labels: pod.metadata.labels,
      annotations: pod.metadata.annotations,
      ownerReferences: pod.metadata.ownerReferences,
    },
    spec: { nodeName: pod.spec?.nodeName },
    status: pod.status,
  };
}

/** @public */
export const Resources = {
  inferencePlatforms: { apiVersion: 'cv.platform.tech/v1beta1', kind: 'InferencePlatform', plural: 'inferenceplatforms', namespaced: true },
  inferencePlatformRestores: {
    apiVersion: 'cv.platform.tech/v1alpha1',
    kind: 'InferencePlatformRestore',
    plural: 'inferenceplatformrestores',
    namespaced: true,
  },
  statefulSets: { apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true },
  deployments: { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  services: { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  configMaps: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  pvcs: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true },
  pdbs: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true },
  hpas: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', namespaced: true },
  /** Optional kinds: watched only where their CRDs are installed when the operator starts. */
  scaledObjects: { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', plural: 'scaledobjects', namespaced: true },
  serviceMonitors: { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', plural: 'servicemonitors', namespaced: true },
  podMonitors: { apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', plural: 'podmonitors', namespaced: true },
  pods: { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true },
  events: { apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true },
} satisfies Record<string, ResourceRef>;
