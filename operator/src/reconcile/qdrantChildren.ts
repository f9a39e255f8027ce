import { DefaultedSpec, InferencePlatform } from '@cv-platform/inference-platform-api';
import { childLabels, names, ownerReference, selectorLabels } from './labels';

export const QDRANT_HTTP_PORT = 6333;
export const QDRANT_GRPC_PORT = 6334;
export const QDRANT_P2P_PORT = 6335;

function meta(p: InferencePlatform, name: string) {
  return {
    name,
    namespace: p.metadata.namespace!,
    labels: childLabels(p, 'qdrant'),
    ownerReferences: [ownerReference(p)],
  };
}

/** Stable DNS for each peer (<pod>.<headless>.<ns>.svc), used by Raft. */
export function qdrantHeadlessService(p: InferencePlatform) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(p, names.qdrantHeadless(p)),
    spec: {
      clusterIP: 'None',
      // Peers must find each other before they are Ready to form the cluster.
      publishNotReadyAddresses: true,
      selector: selectorLabels(p, 'qdrant'),
      ports: [
        { name: 'http', port: QDRANT_HTTP_PORT, targetPort: 'http' },
        { name: 'grpc', port: QDRANT_GRPC_PORT, targetPort: 'grpc' },
        { name: 'p2p', port: QDRANT_P2P_PORT, targetPort: 'p2p' },
      ],
    },
  };
}

/** The client-facing Service the inference servers and the operator talk to. */
export function qdrantClientService(p: InferencePlatform) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(p, names.qdrant(p)),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(p, 'qdrant'),
      ports: [
        { name: 'http', port: QDRANT_HTTP_PORT, targetPort: 'http' },
        { name: 'grpc', port: QDRANT_GRPC_PORT, targetPort: 'grpc' },
      ],
    },
  };
}

export function qdrantServiceUrl(p: InferencePlatform): string {
  return `http://${names.qdrant(p)}.${p.metadata.namespace}.svc:${QDRANT_HTTP_PORT}`;
}

function peerUri(p: InferencePlatform, pod: string) {
  return `http://${pod}.${names.qdrantHeadless(p)}.${p.metadata.namespace}.svc:${QDRANT_P2P_PORT}`;
}

/**
 * Peer 0 bootstraps the Raft cluster; every other peer joins through it. The
 * ordinal comes from the pod's hostname, so one template serves all peers.
 */
function qdrantEntrypoint(p: InferencePlatform, distributed: boolean): string {
  if (!distributed) return 'exec ./entrypoint.sh';
  const self = peerUri(p, '${HOSTNAME}');
  const bootstrap = peerUri(p, `${names.qdrant(p)}-0`);
  return [
    'set -e',
    'if [ "${HOSTNAME##*-}" = "0" ]; then',
    `  exec ./entrypoint.sh --uri "${self}"`,
    'else',
    `  exec ./entrypoint.sh --bootstrap "${bootstrap}" --uri "${self}"`,
    'fi',
  ].join('\n');
}

export function qdrantImage(spec: DefaultedSpec): string {
  const v = spec.qdrant.version;
  return `${spec.qdrant.image}:${v.startsWith('v') ? v : `v${v}`}`;
}

export function qdrantStatefulSet(p: InferencePlatform, spec: DefaultedSpec) {
  const q = spec.qdrant;
  const distributed = q.replicas > 1;
  const env: any[] = [
    { name: 'QDRANT__CLUSTER__ENABLED', value: distributed ? 'true' : 'false' },
    { name: 'QDRANT__CLUSTER__P2P__PORT', value: String(QDRANT_P2P_PORT) },
    { name: 'QDRANT__SERVICE__HTTP_PORT', value: String(QDRANT_HTTP_PORT) },
    { name: 'QDRANT__SERVICE__GRPC_PORT', value: String(QDRANT_GRPC_PORT) },
  ];
  if (q.apiKeySecretRef) {
    env.push({
      name: 'QDRANT__SERVICE__API_KEY',
      valueFrom: { secretKeyRef: { name: q.apiKeySecretRef.name, key: q.apiKeySecretRef.key } },
    });
  }
  const labels = selectorLabels(p, 'qdrant');
  const container: any = {
    name: 'qdrant',
    image: qdrantImage(spec),
    command: ['/bin/sh', '-c', qdrantEntrypoint(p, distributed)],
    env,
    ports: [
      { name: 'http', containerPort: QDRANT_HTTP_PORT },
      { name: 'grpc', containerPort: QDRANT_GRPC_PORT },
      { name: 'p2p', containerPort: QDRANT_P2P_PORT },
    ],
    readinessProbe: {
      httpGet: { path: '/readyz', port: QDRANT_HTTP_PORT },
      periodSeconds: 5,
      failureThreshold: 6,
    },
    livenessProbe: {
      httpGet: { path: '/livez', port: QDRANT_HTTP_PORT },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      failureThreshold: 6,
    },
    startupProbe: {
      httpGet: { path: '/livez', port: QDRANT_HTTP_PORT },
      periodSeconds: 5,
      failureThreshold: 60,
    },
    volumeMounts: [{ name: 'storage', mountPath: '/qdrant/storage' }],
  };
  if (q.resources) container.resources = q.resources;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(p, names.qdrant(p)),
    spec: {
      serviceName: names.qdrantHeadless(p),
      replicas: q.replicas,
      // Raft membership changes one peer at a time: start and roll in order.
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: childLabels(p, 'qdrant') },
        spec: {
          terminationGracePeriodSeconds: 60,
          containers: [container],
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    topologyKey: 'kubernetes.io/hostname',
                    labelSelector: { matchLabels: labels },
                  },
                },
              ],
            },
          },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: labels },
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'storage', labels: childLabels(p, 'qdrant') },
          spec: {
            accessModes: ['ReadWriteOnce'],
            ...(q.storageClassName ? { storageClassName: q.storageClassName } : {}),
            resources: { requests: { storage: String(q.storageSize) } },
          },
        },
      ],
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    },
  };
}

/** With two or more peers, keep a Raft majority through voluntary disruptions. */
export function qdrantPodDisruptionBudget(p: InferencePlatform, spec: DefaultedSpec) {
  if (spec.qdrant.replicas < 2) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(p, names.qdrant(p)),
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: selectorLabels(p, 'qdrant') },
    },
  };
}
