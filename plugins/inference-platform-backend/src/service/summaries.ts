import type { Operator } from '@cv-platform/operator';
import {
  EventSummary,
  InferencePlatform,
  PlatformDetail,
  PlatformSummary,
  PodSummary,
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
  };
}

export function platformSummary(operator: Operator, p: InferencePlatform): PlatformSummary {
  const s = p.status ?? {};
  return {
    platform: p,
    qdrant: { ready: s.qdrantReadyReplicas ?? 0, desired: p.spec.qdrant.replicas ?? 1 },
    inference: { ready: s.inferenceReadyReplicas ?? 0, desired: p.spec.inference.replicas ?? 1 },
    recentEvents: operator
      .platformEvents(p.metadata.namespace!, p.metadata.name!)
      .slice(0, 5)
      .map(eventSummary),
  };
}

export async function platformDetail(operator: Operator, p: InferencePlatform): Promise<PlatformDetail> {
  const ns = p.metadata.namespace!;
  const name = p.metadata.name!;
  const { caches } = operator;
  const pods = caches.pods
    .list(o => o.metadata.namespace === ns && o.metadata.labels?.['cv.platform.tech/platform'] === name)
    .map(podSummary)
    .sort((a, b) => a.name.localeCompare(b.name));
  // Child events (pods, workloads) are not cached: read them when asked.
  const childNames = new Set([name, ...pods.map(x => x.name), `${name}-qdrant`, `${name}-inference`]);
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
  return {
    ...platformSummary(operator, p),
    statefulSet: caches.statefulSets.get(ns, `${name}-qdrant`),
    deployment: caches.deployments.get(ns, `${name}-inference`),
    pods,
    events,
  };
}
