import {
  DefaultedSpec,
  InferencePlatform,
} from '@cv-platform/inference-platform-api';
import {
  childLabels,
  Component,
  names,
  ownerReference,
  selectorLabels,
} from './labels';

function meta(p: InferencePlatform, name: string, component: Component) {
  return {
    name,
    namespace: p.metadata.namespace!,
    labels: childLabels(p, component),
    ownerReferences: [ownerReference(p)],
  };
}

/**
 * Autoscalers scale the platform itself through its scale subresource
 * (spec.inference.replicas, selector from status.inferenceSelector), not the
 * Deployment: the CR shows what the autoscaler chose and the operator, which
 * applies spec.inference.replicas to the Deployment, never fights it.
 */
const scaleTarget = (p: InferencePlatform) => ({
  apiVersion: p.apiVersion,
  kind: p.kind,
  name: p.metadata.name!,
});

/** A HorizontalPodAutoscaler on CPU utilization (spec.inference.autoscaling.metric: cpu). */
export function inferenceHorizontalPodAutoscaler(
  p: InferencePlatform,
  spec: DefaultedSpec,
) {
  const a = spec.inference.autoscaling;
  if (a?.metric !== 'cpu') return undefined;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta(p, names.inference(p), 'inference'),
    spec: {
      scaleTargetRef: scaleTarget(p),
      minReplicas: a.minReplicas,
      maxReplicas: a.maxReplicas,
      metrics: [
        {
          type: 'Resource',
          resource: {
            name: 'cpu',
            target: { type: 'Utilization', averageUtilization: a.target },
          },
        },
      ],
    },
  };
}

/** The PromQL KEDA evaluates: the metric summed over the platform's servers (KEDA divides by the target per replica). */
export function autoscalingQuery(
  p: InferencePlatform,
  metric: 'queueDepth' | 'requestsPerSecond',
): string {
  const sel = `namespace="${p.metadata.namespace}",pod=~"${names.inference(
    p,
  )}-.*"`;
  return metric === 'queueDepth'
    ? `sum(inference_queue_depth{${sel}})`
    : `sum(rate(inference_http_requests_total{${sel}}[1m]))`;
}

/** A KEDA ScaledObject on the servers' own metrics (queueDepth, requestsPerSecond) through Prometheus. */
export function inferenceScaledObject(
  p: InferencePlatform,
  spec: DefaultedSpec,
) {
  const a = spec.inference.autoscaling;
  if (!a || a.metric === 'cpu') return undefined;
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: meta(p, names.inference(p), 'inference'),
    spec: {
      scaleTargetRef: scaleTarget(p),
      minReplicaCount: a.minReplicas,
      maxReplicaCount: a.maxReplicas,
      triggers: [
        {
          type: 'prometheus',
          metadata: {
            serverAddress: a.prometheusServerAddress!,
            query: autoscalingQuery(p, a.metric),
            threshold: String(a.target),
          },
        },
      ],
    },
  };
}

/** Prometheus Operator: the inference servers' /metrics through their Service. */
export function inferenceServiceMonitor(p: InferencePlatform) {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: meta(p, names.inference(p), 'inference'),
    spec: {
      selector: { matchLabels: selectorLabels(p, 'inference') },
      endpoints: [{ port: 'http', path: '/metrics' }],
    },
  };
}

/** Prometheus Operator: every Qdrant peer's /metrics (each peer reports its own shards). */
export function qdrantPodMonitor(p: InferencePlatform) {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: meta(p, names.qdrant(p), 'qdrant'),
    spec: {
      selector: { matchLabels: selectorLabels(p, 'qdrant') },
      podMetricsEndpoints: [{ port: 'http', path: '/metrics' }],
    },
  };
}
