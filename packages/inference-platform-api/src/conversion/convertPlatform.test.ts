import fc from 'fast-check';
import {
  ConversionError,
  V1ALPHA1_FIELDS_ANNOTATION,
  convertPlatform,
  toV1alpha1,
  toV1beta1,
} from './convertPlatform';
import { InferencePlatform } from '../types';
import { InferencePlatformV1beta1 } from '../v1beta1/types';

// Objects as the API server keeps them: a group is either absent or holds
// at least one field (a group of defaulted fields is never empty).
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const nonEmpty = <T extends object>(a: fc.Arbitrary<T>) =>
  a.map(o => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T).filter(
    o => Object.keys(o).length > 0,
  );
const record = <T extends Record<string, fc.Arbitrary<unknown>>>(r: T) =>
  fc.record(r, { requiredKeys: [] }) as fc.Arbitrary<{ [K in keyof T]?: T[K] extends fc.Arbitrary<infer U> ? U : never }>;

const quantity = fc.oneof(fc.constantFrom('10Gi', '1Gi', '500m', '2'), fc.integer({ min: 1, max: 64 }));
const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const url = word.map(w => `s3://models/${w}.onnx`);
const resources = record({
  requests: fc.dictionary(fc.constantFrom('cpu', 'memory'), quantity),
  limits: fc.dictionary(fc.constantFrom('cpu', 'memory'), quantity),
});
const s3 = record({
  endpoint: fc.constant('http://minio:9000'),
  region: fc.constantFrom('us-east-1', 'eu-west-1'),
  forcePathStyle: fc.boolean(),
  credentialsSecretRef: fc.record(
    { name: word, accessKeyIdKey: word, secretAccessKeyKey: word },
    { requiredKeys: ['name'] },
  ),
});
const backup = fc.record(
  {
    schedule: fc.constantFrom('0 3 * * *', '@daily'),
    suspend: fc.boolean(),
    retention: record({ count: fc.integer({ min: 1, max: 9 }), maxAge: fc.constantFrom('30d', '168h') }),
    s3: fc.record({ bucket: fc.constant('backups'), prefix: word, region: fc.constant('us-east-1') }, { requiredKeys: ['bucket'] }),
  },
  { requiredKeys: ['schedule', 's3'] },
);
const modelSource = record({
  mode: fc.constantFrom('emptyDir' as const, 'pvc' as const),
  sizeLimit: quantity,
  storageClassName: word,
  pullTimeoutSeconds: fc.integer({ min: 1, max: 600 }),
  maxRetries: fc.integer({ min: 0, max: 20 }),
  warmupTimeoutSeconds: fc.integer({ min: 1, max: 600 }),
  loaderImage: word,
  accessMode: fc.constantFrom('ReadWriteMany' as const, 'ReadWriteOnce' as const),
  s3: nonEmpty(s3),
});
const autoscaling = fc.record(
  {
    minReplicas: fc.integer({ min: 1, max: 3 }),
    maxReplicas: fc.integer({ min: 3, max: 9 }),
    metric: fc.constantFrom('cpu' as const, 'queueDepth' as const),
    target: fc.integer({ min: 1, max: 100 }),
    prometheusServerAddress: fc.constant('http://prometheus:9090'),
  },
  { requiredKeys: ['maxReplicas', 'target'] },
);
const metadata = fc.record(
  {
    name: word,
    namespace: word,
    uid: fc.uuid(),
    resourceVersion: fc.integer({ min: 1 }).map(String),
    generation: fc.integer({ min: 1, max: 99 }),
    labels: fc.dictionary(word, word, { maxKeys: 2 }),
    annotations: fc.dictionary(word.map(w => `example.com/${w}`), word, { minKeys: 1, maxKeys: 2 }),
    finalizers: fc.constant<string[]>(['cv.platform.tech/finalizer']),
  },
  { requiredKeys: ['name', 'namespace'] },
);
const status = maybe(
  record({
    phase: fc.constantFrom('Pending' as const, 'Ready' as const),
    message: word,
    observedGeneration: fc.integer({ min: 1, max: 99 }),
    model: fc.record({ desired: url, loaded: fc.dictionary(url, fc.integer({ min: 0, max: 5 })) }),
  }),
);

const v1alpha1: fc.Arbitrary<InferencePlatform> = fc
  .record({
    metadata,
    qdrant: fc.record(
      {
        version: fc.constantFrom('v1.14.1', 'v1.15.0'),
        replicas: fc.integer({ min: 1, max: 5 }),
        storageSize: quantity,
        storageClassName: word,
        image: word,
        resources,
        apiKeySecretRef: fc.record({ name: word, key: word }, { requiredKeys: ['name'] }),
        replicationFactor: fc.integer({ min: 1, max: 3 }),
        allowDowntime: fc.boolean(),
        rebalance: fc.boolean(),
        onLeaderChange: fc.constantFrom('Ignore' as const, 'RestartInference' as const),
        backup,
      },
      { requiredKeys: ['version'] },
    ),
    inference: fc.record(
      {
        image: word,
        modelUrl: url,
        replicas: fc.integer({ min: 0, max: 9 }),
        resources,
        modelSource,
        gpu: record({ count: fc.integer({ min: 0, max: 2 }), type: word }),
        readinessProbePath: fc.constantFrom('/healthz', '/ready', '/v1/ready'),
        port: fc.integer({ min: 1, max: 65535 }),
        collection: word,
        batchMaxSize: fc.integer({ min: 1, max: 256 }),
        batchMaxLatencyMs: fc.integer({ min: 0, max: 100 }),
        progressDeadlineSeconds: fc.integer({ min: 5, max: 600 }),
        serviceAccountName: word,
        modelUpdate: fc.constantFrom('HotReload' as const, 'Rollout' as const),
        autoscaling,
        canary: fc.record({ modelUrl: url, weight: fc.integer({ min: 0, max: 100 }), collection: word }),
      },
      { requiredKeys: ['image', 'modelUrl'] },
    ),
    status,
  })
  .map(({ metadata: m, qdrant, inference, status: s }) => ({
    apiVersion: 'cv.platform.tech/v1alpha1' as const,
    kind: 'InferencePlatform' as const,
    metadata: m,
    spec: { qdrant, inference },
    ...(s ? { status: s } : {}),
  }));

const v1beta1: fc.Arbitrary<InferencePlatformV1beta1> = fc
  .record({
    metadata,
    qdrant: fc.record(
      {
        version: fc.constantFrom('v1.14.1', 'v1.15.0'),
        replicas: fc.integer({ min: 1, max: 5 }),
        storage: nonEmpty(record({ size: quantity, className: word })),
        image: word,
        resources,
        replicationFactor: fc.integer({ min: 1, max: 3 }),
        allowDowntime: fc.boolean(),
        rebalance: fc.boolean(),
        onLeaderChange: fc.constantFrom('Ignore' as const, 'RestartInference' as const),
      },
      { requiredKeys: ['version'] },
    ),
    inference: fc.record(
      {
        image: word,
        model: fc.record(
          { url, update: fc.constantFrom('HotReload' as const, 'Rollout' as const), source: modelSource },
          { requiredKeys: ['url'] },
        ),
        replicas: fc.integer({ min: 0, max: 9 }),
        resources,
        gpu: record({ count: fc.integer({ min: 0, max: 2 }), type: word }),
        port: fc.integer({ min: 1, max: 65535 }),
        collection: word,
        batching: nonEmpty(record({ maxSize: fc.integer({ min: 1, max: 256 }), maxLatencyMs: fc.integer({ min: 0, max: 100 }) })),
        progressDeadlineSeconds: fc.integer({ min: 5, max: 600 }),
        serviceAccountName: word,
        autoscaling,
        canary: fc.record({ model: fc.record({ url }), weight: fc.integer({ min: 0, max: 100 }), collection: word }),
      },
      { requiredKeys: ['image', 'model'] },
    ),
    backup: maybe(backup),
    status,
  })
  .map(({ metadata: m, qdrant, inference, backup: b, status: s }) => ({
    apiVersion: 'cv.platform.tech/v1beta1' as const,
    kind: 'InferencePlatform' as const,
    metadata: m,
    spec: { qdrant, inference, ...(b ? { backup: b } : {}) },
    ...(s ? { status: s } : {}),
  }));

// As the webhook receives them (plain objects; no `key: undefined` to hide a loss).
const json = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe('convertPlatform', () => {
  it('v1alpha1 -> v1beta1 -> v1alpha1 gives back the same object', () => {
    fc.assert(
      fc.property(v1alpha1, generated => {
        const obj = json(generated);
        const before = structuredClone(obj);
        const there = convertPlatform(obj, 'cv.platform.tech/v1beta1');
        expect(there.apiVersion).toBe('cv.platform.tech/v1beta1');
        expect(convertPlatform(there, 'cv.platform.tech/v1alpha1')).toStrictEqual(obj);
        expect(obj).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it('v1beta1 -> v1alpha1 -> v1beta1 gives back the same object', () => {
    fc.assert(
      fc.property(v1beta1, generated => {
        const obj = json(generated);
        const before = structuredClone(obj);
        const there = convertPlatform(obj, 'cv.platform.tech/v1alpha1');
        expect(there.apiVersion).toBe('cv.platform.tech/v1alpha1');
        expect(convertPlatform(there, 'cv.platform.tech/v1beta1')).toStrictEqual(obj);
        expect(obj).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  const seed: InferencePlatform = {
    apiVersion: 'cv.platform.tech/v1alpha1',
    kind: 'InferencePlatform',
    metadata: { name: 'image-retrieval-prod', namespace: 'default' },
    spec: {
      qdrant: { version: 'v1.14.1', replicas: 3, storageClassName: 'gp2', storageSize: '10Gi' },
      inference: {
        image: 'my-repo/cv-inference:latest',
        modelUrl: 's3://models/resnet50-v2-7.onnx',
        replicas: 5,
        readinessProbePath: '/readyz',
        batchMaxSize: 16,
        modelUpdate: 'HotReload',
      },
    },
  };

  it('groups the fields v1alpha1 spread out', () => {
    expect(toV1beta1(seed)).toEqual({
      apiVersion: 'cv.platform.tech/v1beta1',
      kind: 'InferencePlatform',
      metadata: { name: 'image-retrieval-prod', namespace: 'default' },
      spec: {
        qdrant: { version: 'v1.14.1', replicas: 3, storage: { className: 'gp2', size: '10Gi' } },
        inference: {
          image: 'my-repo/cv-inference:latest',
          replicas: 5,
          model: { url: 's3://models/resnet50-v2-7.onnx', update: 'HotReload' },
          batching: { maxSize: 16 },
        },
      },
    });
  });

  it('keeps a readinessProbePath other than the default in an annotation, and gives it back', () => {
    const custom = structuredClone(seed);
    custom.spec.inference.readinessProbePath = '/healthz';
    const beta = toV1beta1(custom);
    expect(beta.metadata.annotations).toEqual({
      [V1ALPHA1_FIELDS_ANNOTATION]: '{"inference":{"readinessProbePath":"/healthz"}}',
    });
    expect(toV1alpha1(beta).spec.inference.readinessProbePath).toBe('/healthz');
    expect(toV1alpha1(beta).metadata.annotations).toBeUndefined();
    // The default is v1alpha1's schema default: it comes back on read by itself.
    expect(toV1beta1(seed).metadata.annotations).toBeUndefined();
    expect(toV1alpha1(toV1beta1(seed)).spec.inference.readinessProbePath).toBeUndefined();
  });

  it('refuses what it cannot convert, saying why', () => {
    expect(() => convertPlatform(seed, 'cv.platform.tech/v2')).toThrow(
      new ConversionError('unknown apiVersion "cv.platform.tech/v2": this operator serves cv.platform.tech/v1alpha1 and cv.platform.tech/v1beta1'),
    );
    expect(() => convertPlatform({ ...seed, kind: 'Pod' } as any, 'cv.platform.tech/v1beta1')).toThrow(
      'cannot convert kind "Pod": only InferencePlatform',
    );
    const bad = toV1beta1(seed);
    bad.metadata.annotations = { [V1ALPHA1_FIELDS_ANNOTATION]: 'not json' };
    expect(() => toV1alpha1(bad)).toThrow(
      `metadata.annotations["${V1ALPHA1_FIELDS_ANNOTATION}"] is not a JSON object of v1alpha1 spec fields: "not json"`,
    );
    const noModel = toV1beta1(seed) as any;
    delete noModel.spec.inference.model;
    expect(() => toV1alpha1(noModel)).toThrow('spec.inference.model.url is required to convert to v1alpha1');
  });

  it('returns an object already at the asked version as it is', () => {
    expect(convertPlatform(seed, 'cv.platform.tech/v1alpha1')).toBe(seed);
  });
});
