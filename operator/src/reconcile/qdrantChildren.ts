import { DefaultedSpec, InferencePlatform } from '@cv-platform/inference-platform-api';
import { childLabels, names, ownerReference, selectorLabels } from './labels';

/** @public */
export const QDRANT_HTTP_PORT = 6333;
/** @public */
export const QDRANT_GRPC_PORT = 6334;
/** @public */
export const QDRANT_P2P_PORT = 6335;

function meta(p: InferencePlatform, name: string) {
  return {
    name,
    namespace: p.metadata.namespace!,
    labels: childLabels(p, 'qdrant'),
    ownerReferences: [ownerReference(p)],
  };
}

/**
 * Stable DNS for each peer (<pod>.<headless>.<ns>.svc), used by Raft.
 *
 * @public
 */
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

/**
 * The client-facing Service the inference servers and the operator talk to.
 *
 * @public
 */
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

/** @public */
export function qdrantServiceUrl(p: InferencePlatform): string {
  return `http://${names.qdrant(p)}.${p.metadata.namespace}.svc:${QDRANT_HTTP_PORT}`;
}

function peerUri(p: InferencePlatform, pod: string) {
  return `http://${pod}.${names.qdrantHeadless(p)}.${p.metadata.namespace}.svc:${QDRANT_P2P_PORT}`;
}

/**
 * One peer's REST API, by its pod's stable name under the headless Service.
 *
 * @public
 */
export function qdrantPeerUrl(p: InferencePlatform, pod: string): string {
  return `http://${pod}.${names.qdrantHeadless(p)}.${p.metadata.namespace}.svc:${QDRANT_HTTP_PORT}`;
}

/**
 * Peer 0 bootstraps the Raft cluster; every other peer joins through it. The
 * ordinal comes from the pod's hostname, so one template serves all peers.
 * Cluster mode is on at every size, a single peer included: a peer started
 * with --bootstrap against a peer 0 running without cluster mode panics
 * (Qdrant 1.14.1: "Can't initialize consensus"), so turning it on only from
 * two peers would make scaling 1 -> 3 crash-loop and 3 -> 1 restart peer 0.
 */
function qdrantEntrypoint(p: InferencePlatform): string {
  const self = peerUri(p, '${HOSTNAME}');
  const bootstrap = peerUri(p, `${names.qdrant(p)}-0`);
  return [
    'set -e',
    // Segments and WAL files are many open files; lift the soft limit to the
    // hard one the runtime grants (raising the hard limit needs privileges).
    'ulimit -n "$(ulimit -Hn)" 2>/dev/null || true',
    'if [ "${HOSTNAME##*-}" = "0" ]; then',
    `  exec ./entrypoint.sh --uri "${self}"`,
    'else',
    `  exec ./entrypoint.sh --bootstrap "${bootstrap}" --uri "${self}"`,
    'fi',
  ].join('\n');
}

/**
 * As Qdrant's Helm chart: a numeric non-root user (the kubelet cannot check a named one), a group that owns the volumes.
 *
 * @public
 */
export const QDRANT_POD_SECURITY = { fsGroup: 3000, fsGroupChangePolicy: 'OnRootMismatch' };
/** @public */
export const QDRANT_CONTAINER_SECURITY = {
  runAsUser: 1000,
  runAsGroup: 2000,
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** @public */
export function qdrantImage(spec: DefaultedSpec): string {
  const v = spec.qdrant.version;
  return `${spec.qdrant.image}:${v.startsWith('v') ? v : `v${v}`}`;
}

/** @public */
export function qdrantStatefulSet(p: InferencePlatform, spec: DefaultedSpec) {
  const q = spec.qdrant;
  const env: any[] = [
    { name: 'QDRANT__CLUSTER__ENABLED', value: 'true' },
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
    command: ['/bin/sh', '-c', qdrantEntrypoint(p)],
    env,
    ports: [
      { name: 'http', containerPort: QDRANT_HTTP_PORT },
      { name: 'grpc', containerPort: QDRANT_GRPC_PORT },
      { name: 'p2p', containerPort: QDRANT_P2P_PORT },
    ],
    // Readiness only, as Qdrant's own chart: a peer loads every collection
    // before its HTTP server starts, so a liveness or startup probe would
    // kill a peer that is still loading a large collection, again and again.
    readinessProbe: {
      httpGet: { path: '/readyz', port: QDRANT_HTTP_PORT },
      periodSeconds: 5,
      failureThreshold: 6,
    },
    securityContext: QDRANT_CONTAINER_SECURITY,
    // The root filesystem is read-only; Qdrant writes only these.
    volumeMounts: [
      { name: 'storage', mountPath: '/qdrant/storage' },
      { name: 'snapshots', mountPath: '/qdrant/snapshots' },
      { name: 'init', mountPath: '/qdrant/init' },
      { name: 'tmp', mountPath: '/tmp' },
    ],
  };
  if (q.resources) container.resources = q.resources;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: meta(p, names.qdrant(p)),
    spec: {
      serviceName: names.qdrantHeadless(p),
      replicas: q.replicas,
      // As Qdrant's chart: peers (re)start together, so a cluster restarted
      // in full does not wait peer by peer for readiness that needs a Raft
      // majority. Rolling updates stay one peer at a time (RollingUpdate).
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: childLabels(p, 'qdrant') },
        spec: {
          terminationGracePeriodSeconds: 60,
          securityContext: QDRANT_POD_SECURITY,
          containers: [container],
          volumes: [
            { name: 'snapshots', emptyDir: {} },
            { name: 'init', emptyDir: {} },
            { name: 'tmp', emptyDir: {} },
          ],
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
      // A peer's volume goes with it on scale-down: the operator has moved
      // its shards away and removed it from Raft first, and a volume kept
      // would bring the removed peer's identity back on the next scale-up.
      // Deleting the platform keeps the volumes (data outlives mistakes).
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
    },
  };
}

/**
 * Peers that must stay up for Raft to keep a majority of `peers`: 2 of 2,
 * 2 of 3, 3 of 4 and 5. (maxUnavailable 1 would let a drain take one of two
 * peers, and with it the majority.)
 *
 * @public
 */
export function raftQuorum(peers: number): number {
  return Math.floor(peers / 2) + 1;
}

/**
 * With two or more peers, keep a Raft majority through voluntary disruptions.
 *
 * @public
 */
export function qdrantPodDisruptionBudget(p: InferencePlatform, spec: DefaultedSpec) {
  if (spec.qdrant.replicas < 2) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(p, names.qdrant(p)),
    spec: {
      minAvailable: raftQuorum(spec.qdrant.replicas),
      selector: { matchLabels: selectorLabels(p, 'qdrant') },
    },
  };
}
