import { inferencePlatformSchema, JSONSchemaProps } from './crd';
import { InferencePlatformSpec, InferencePlatformStatus } from './types';
import { InferencePlatformSpecV1beta1 } from './v1beta1/types';
import { inferencePlatformSchemaV1beta1 } from './v1beta1/schema';

/** Every optional field required, recursively: an example of this type sets every field. */
type DeepRequired<T> = T extends Array<infer U>
  ? Array<DeepRequired<U>>
  : T extends object
    ? { [K in keyof T]-?: DeepRequired<T[K]> }
    : T;

// The compiler forces these examples to name every field of the TypeScript types.
const fullSpec: DeepRequired<InferencePlatformSpec> = {
  qdrant: {
    version: 'v1.14.1',
    replicas: 3,
    storageClassName: 'gp2',
    storageSize: '10Gi',
    image: 'qdrant/qdrant',
    resources: { requests: { cpu: '1' }, limits: { cpu: '2' } },
    apiKeySecretRef: { name: 's', key: 'api-key' },
    replicationFactor: 2,
    allowDowntime: false,
    onLeaderChange: 'Ignore',
    rebalance: true,
    backup: {
      schedule: '0 3 * * *',
      suspend: false,
      retention: { count: 7, maxAge: '30d' },
      s3: {
        bucket: 'backups',
        prefix: 'qdrant',
        endpoint: 'http://s3',
        region: 'r',
        forcePathStyle: true,
        credentialsSecretRef: { name: 's', accessKeyIdKey: 'a', secretAccessKeyKey: 'b' },
      },
    },
  },
  inference: {
    image: 'i',
    modelUrl: 's3://m/model.onnx',
    replicas: 1,
    resources: { requests: { cpu: '1' }, limits: { cpu: '2' } },
    modelSource: {
      mode: 'pvc',
      sizeLimit: '1Gi',
      storageClassName: 'x',
      pullTimeoutSeconds: 60,
      maxRetries: 3,
      warmupTimeoutSeconds: 600,
      loaderImage: 'l',
      accessMode: 'ReadWriteOnce',
      s3: {
        endpoint: 'http://s3',
        region: 'r',
        forcePathStyle: true,
        credentialsSecretRef: { name: 's', accessKeyIdKey: 'a', secretAccessKeyKey: 'b' },
      },
    },
    gpu: { count: 1, type: 't' },
    readinessProbePath: '/readyz',
    port: 8080,
    collection: 'images',
    batchMaxSize: 16,
    batchMaxLatencyMs: 5,
    progressDeadlineSeconds: 600,
    serviceAccountName: 'sa',
    modelUpdate: 'HotReload',
    autoscaling: { minReplicas: 1, maxReplicas: 4, metric: 'queueDepth', target: 8, prometheusServerAddress: 'http://prometheus:9090' },
    canary: { modelUrl: 's3://m/model-v2.onnx', weight: 20, collection: 'images-v2' },
  },
};

const fullSpecV1beta1: DeepRequired<InferencePlatformSpecV1beta1> = {
  qdrant: {
    version: 'v1.14.1',
    replicas: 3,
    storage: { className: 'gp2', size: '10Gi' },
    image: 'qdrant/qdrant',
    resources: { requests: { cpu: '1' }, limits: { cpu: '2' } },
    apiKeySecretRef: { name: 's', key: 'api-key' },
    replicationFactor: 2,
    allowDowntime: false,
    onLeaderChange: 'Ignore',
    rebalance: true,
  },
  inference: {
    image: 'i',
    model: {
      url: 's3://m/model.onnx',
      update: 'HotReload',
      source: fullSpec.inference.modelSource,
    },
    replicas: 1,
    resources: { requests: { cpu: '1' }, limits: { cpu: '2' } },
    gpu: { count: 1, type: 't' },
    port: 8080,
    collection: 'images',
    batching: { maxSize: 16, maxLatencyMs: 5 },
    progressDeadlineSeconds: 600,
    serviceAccountName: 'sa',
    autoscaling: fullSpec.inference.autoscaling,
    canary: { model: { url: 's3://m/model-v2.onnx' }, weight: 20, collection: 'images-v2' },
  },
  backup: fullSpec.qdrant.backup,
};

const fullStatus: DeepRequired<InferencePlatformStatus> = {
  phase: 'Ready',
  message: 'm',
  observedGeneration: 1,
  conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: 'm', lastTransitionTime: 't', observedGeneration: 1 }],
  qdrantReplicas: 1,
  qdrantReadyReplicas: 1,
  inferenceReplicas: 1,
  inferenceReadyReplicas: 1,
  model: { desired: 's3://m/model.onnx', loaded: { 's3://m/model.onnx': 1 } },
  qdrantReadiness: '1/1',
  inferenceReadiness: '1/1',
  inferenceSelector: 'a=b',
  qdrantCluster: {
    reachable: true,
    peerId: '1',
    peers: [{ id: '1', uri: 'u' }],
    raftLeader: '1',
    raftTerm: 1,
    raftCommit: 9,
    pendingOperations: 0,
    consensus: 'working',
    collections: [{ name: 'images', replicationFactor: 2, shards: 2, replicas: { Active: 4 }, perPeer: { '1': 4 }, transfers: 0, problems: ['p'] }],
    lastChecked: 't',
    message: 'm',
  },
  qdrant: {
    version: 'v1.14.1',
    scaleDown: {
      fromReplicas: 3,
      toReplicas: 2,
      step: 'Draining',
      reason: 'R',
      message: 'm',
      leavingPeers: ['p-qdrant-2 (peer 1)'],
      transfersInFlight: 1,
    },
  },
  canary: {
    modelUrl: 's3://m/model-v2.onnx',
    collection: 'images-v2',
    weight: 20,
    replicas: 1,
    readyReplicas: 1,
    effectiveWeight: 20,
    state: 'Serving',
    message: 'm',
    metrics: {
      stable: { requestsPerSecond: 4, errorRate: 0, p95LatencyMs: 20 },
      canary: { requestsPerSecond: 1, errorRate: 0, p95LatencyMs: 25 },
      windowSeconds: 30,
      observedAt: 't',
    },
  },
  backup: {
    lastScheduleTime: 't',
    lastSuccessfulTime: 't',
    nextScheduleTime: 't',
    lastRequestHandled: 't',
    running: { id: '20261204-030000', trigger: 'Scheduled', startTime: 't' },
    history: [
      {
        id: '20261204-030000',
        trigger: 'Manual',
        startTime: 't',
        completionTime: 't',
        result: 'Succeeded',
        message: 'm',
        location: 's3://b/p',
        sizeBytes: 1,
        collections: [{ name: 'images', points: 1, snapshots: [{ pod: 'p-qdrant-0', shards: [0], key: 'k', size: 1, checksum: 'c' }] }],
      },
    ],
  },
};

/** Field paths of an example object; maps (resource lists) count as one field. */
function valuePaths(v: unknown, prefix: string, out: Set<string>, maps: Set<string>) {
  if (Array.isArray(v)) {
    valuePaths(v[0], `${prefix}[]`, out, maps);
  } else if (v && typeof v === 'object' && !maps.has(prefix)) {
    for (const [k, x] of Object.entries(v)) {
      out.add(`${prefix}.${k}`);
      valuePaths(x, `${prefix}.${k}`, out, maps);
    }
  }
}

function schemaPaths(s: JSONSchemaProps, prefix: string, out: Set<string>, maps: Set<string>) {
  if (s.type === 'array' && s.items) schemaPaths(s.items, `${prefix}[]`, out, maps);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') maps.add(prefix);
  for (const [k, x] of Object.entries(s.properties ?? {})) {
    out.add(`${prefix}.${k}`);
    schemaPaths(x, `${prefix}.${k}`, out, maps);
  }
}

describe('TypeScript types against the CRD schema', () => {
  it.each([
    ['spec', fullSpec],
    ['status', fullStatus],
  ] as const)('%s has exactly the fields of the schema', (root, example) => {
    const fromSchema = new Set<string>();
    const maps = new Set<string>();
    schemaPaths(inferencePlatformSchema.properties![root], root, fromSchema, maps);
    const fromType = new Set<string>();
    valuePaths(example, root, fromType, maps);
    expect([...fromType].sort()).toEqual([...fromSchema].sort());
  });

  it.each([
    ['spec', fullSpecV1beta1],
    ['status', fullStatus],
  ] as const)('%s at v1beta1 has exactly the fields of the schema', (root, example) => {
    const fromSchema = new Set<string>();
    const maps = new Set<string>();
    schemaPaths(inferencePlatformSchemaV1beta1.properties![root], root, fromSchema, maps);
    const fromType = new Set<string>();
    valuePaths(example, root, fromType, maps);
    expect([...fromType].sort()).toEqual([...fromSchema].sort());
  });

  it('marks as required at v1beta1 exactly what the types require', () => {
    const spec = inferencePlatformSchemaV1beta1.properties!.spec;
    expect(spec.required).toEqual(['qdrant', 'inference']);
    expect(spec.properties!.qdrant.required).toEqual(['version']);
    expect(spec.properties!.inference.required).toEqual(['image', 'model']);
    expect(spec.properties!.inference.properties!.model.required).toEqual(['url']);
    expect(spec.properties!.inference.properties!.canary.required).toEqual(['model', 'weight', 'collection']);
  });

  it('marks as required in the schema exactly what the types require', () => {
    const spec = inferencePlatformSchema.properties!.spec;
    expect(spec.required).toEqual(['qdrant', 'inference']);
    expect(spec.properties!.qdrant.required).toEqual(['version']);
    expect(spec.properties!.inference.required).toEqual(['image', 'modelUrl']);
  });
});
