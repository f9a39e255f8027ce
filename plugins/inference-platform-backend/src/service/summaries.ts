import { LABEL_PLATFORM, names, PVCS_BY_PLATFORM, type Operator } from '@cv-platform/operator';
import {
  EventSummary,
  InferencePlatform,
  ObjectRef,
  PlatformDetail,
  PlatformSummary,
  PodSummary,
  toV1beta1,
  VolumeSummary,
  WorkloadRollout,
} from '@cv-platform/plugin-inference-platform-common';

export function eventSummary(e: any): EventSummary {
  return {
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count ?? 1,
    lastTimestamp: e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp,
    involvedObject: { kind: e.involvedObject?.kind, name: e.involvedObject?.name },
  };
}

/** A pod's init containers and containers by name (the operator's pod cache keeps their statuses, not the spec). */
export function containerNames(pod: any): { initContainers: string[]; containers: string[] } {
  const named = (statuses: any[] | undefined, spec: any[] | undefined) =>
    (statuses?.length ? statuses : spec ?? []).map((c: any) => c.name as string);
  return {
    initContainers: named(pod.status?.initContainerStatuses, pod.spec?.initContainers),
    containers: named(pod.status?.containerStatuses, pod.spec?.containers),
  };
}

export function podSummary(pod: any): PodSummary {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const ready = (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
  let reason: string | undefined;
  if (!ready) {
    const unsched = (pod.status?.conditions ?? []).find(
      (c: any) => c.type === 'PodScheduled' && c.status === 'False',
    );
    const waiting = statuses.find((s: any) => s.state?.waiting && s.state.waiting.reason !== 'PodInitializing');
    reason = unsched?.message ?? (waiting ? `${waiting.name}: ${waiting.state.waiting.reason}` : undefined);
  }
  return {
    name: pod.metadata.name,
    component: pod.metadata.labels?.['app.kubernetes.io/component'] ?? 'unknown',
    phase: pod.status?.phase ?? 'Unknown',
    ready,
    nodeName: pod.spec?.nodeName,
    restarts: statuses.reduce((n: number, s: any) => n + (s.restartCount ?? 0), 0),
    reason,
    createdAt: pod.metadata.creationTimestamp,
    ...containerNames(pod),
  };
}

export function workloadRollout(obj: any, role: WorkloadRollout['role']): WorkloadRollout {
  const s = obj.status ?? {};
  const desired = obj.spec?.replicas ?? 1;
  const stale = (s.observedGeneration ?? 0) < (obj.metadata?.generation ?? 0);
  const counts = { name: obj.metadata.name, role, desired, replicas: s.replicas ?? 0, ready: s.readyReplicas ?? 0, updated: s.updatedReplicas ?? 0 };
  if (obj.kind === 'StatefulSet') {
    return {
      kind: 'StatefulSet',
      ...counts,
      currentRevision: s.currentRevision,
      updateRevision: s.updateRevision,
      partition: obj.spec?.updateStrategy?.rollingUpdate?.partition,
      rolling: stale || (!!s.updateRevision && s.updateRevision !== s.currentRevision) || counts.updated < desired,
      conditions: [],
    };
  }
  return {
    kind: 'Deployment',
    ...counts,
    available: s.availableReplicas ?? 0,
    rolling: stale || counts.updated < desired || counts.replicas > desired,
    conditions: (s.conditions ?? []).map((c: any) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })),
  };
}

export function volumeSummary(pvc: any): VolumeSummary {
  return {
    name: pvc.metadata.name,
    phase: pvc.status?.phase ?? 'Pending',
    requested: pvc.spec?.resources?.requests?.storage,
    capacity: pvc.status?.capacity?.storage,
    storageClassName: pvc.spec?.storageClassName,
    accessModes: pvc.spec?.accessModes ?? [],
    conditions: (pvc.status?.conditions ?? []).map((c: any) => ({ type: c.type, message: c.message })),
  };
}

/** An object as `kubectl get -o yaml` shows it, without the field ownership bookkeeping. */
export function forYaml(obj: any): unknown {
  const { managedFields: _managedFields, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata };
}

/** The platform's children as the operator's caches know them: kind, API version and name. */
export function childRefs(operator: Operator, p: InferencePlatform): ObjectRef[] {
  const ns = p.metadata.namespace!;
  const name = p.metadata.name!;
  const { caches } = operator;
  const mine = (o: any) => o.metadata.namespace === ns && o.metadata.labels?.[LABEL_PLATFORM] === name;
  return [caches.statefulSets, caches.deployments, caches.services, caches.configMaps, caches.pdbs, caches.hpas, caches.scaledObjects, caches.serviceMonitors, caches.podMonitors, caches.pvcs]
    .flatMap(cache => cache?.list(mine) ?? [])
    .map(o => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name }))
    .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`));
}

export function platformSummary(operator: Operator, p: InferencePlatform, cluster: string): PlatformSummary {
  const s = p.status ?? {};
  return {
    cluster,
    // Clients see the storage version; the operator's caches keep its own layout.
    platform: toV1beta1(p),
    qdrant: { ready: s.qdrantReadyReplicas ?? 0, desired: p.spec.qdrant.replicas ?? 1 },
    inference: { ready: s.inferenceReadyReplicas ?? 0, desired: p.spec.inference.replicas ?? 1 },
    recentEvents: operator
      .platformEvents(p.metadata.namespace!, p.metadata.name!)
      .slice(0, 5)
      .map(eventSummary),
  };
}

export async function platformDetail(operator: Operator, p: InferencePlatform, cluster: string): Promise<PlatformDetail> {
  const ns = p.metadata.namespace!;
  const name = p.metadata.name!;
  const { caches } = operator;
  const pods = caches.pods
    .list(o => o.metadata.namespace === ns && o.metadata.labels?.['cv.platform.tech/platform'] === name)
    .map(podSummary)
    .sort((a, b) => a.name.localeCompare(b.name));
  // Child events (pods, workloads) are not cached: read them when asked.
  const childNames = new Set([name, ...pods.map(x => x.name), names.qdrant(p), names.inference(p), names.inferenceCanary(p)]);
  let events: EventSummary[] = [];
  try {
    const list = await operator.client.get(`/api/v1/namespaces/${encodeURIComponent(ns)}/events?limit=500`);
    events = (list.items ?? [])
      .filter((e: any) => childNames.has(e.involvedObject?.name))
      .map(eventSummary)
      .sort((a: EventSummary, b: EventSummary) => String(b.lastTimestamp).localeCompare(String(a.lastTimestamp)))
      .slice(0, 50);
  } catch {
    events = operator.platformEvents(ns, name).map(eventSummary);
  }
  const statefulSet = caches.statefulSets.get(ns, names.qdrant(p));
  const deployment = caches.deployments.get(ns, names.inference(p));
  const canary = caches.deployments.get(ns, names.inferenceCanary(p));
  const workloads: WorkloadRollout[] = [];
  if (statefulSet) workloads.push(workloadRollout(statefulSet, 'qdrant'));
  if (deployment) workloads.push(workloadRollout(deployment, 'inference'));
  if (canary) workloads.push(workloadRollout(canary, 'canary'));
  const pvcs = caches.pvcs.byIndex(PVCS_BY_PLATFORM, `${ns}/${name}`);
  return {
    ...platformSummary(operator, p, cluster),
    statefulSet,
    deployment,
    pods,
    events,
    workloads,
    volumes: pvcs.map(volumeSummary).sort((a, b) => a.name.localeCompare(b.name)),
    objects: [{ apiVersion: p.apiVersion, kind: p.kind, name }, ...childRefs(operator, p)],
  };
}
