import { DefaultedSpec, InferencePlatform } from '@cv-platform/inference-platform-api';
import { childLabels, LABEL_TRACK, names, ownerReference, selectorLabels, Track } from './labels';
import { qdrantServiceUrl } from './qdrantChildren';
import { shortHash } from './shortHash';

/** @public */
export const GPU_RESOURCE = 'nvidia.com/gpu';
/** @public */
export const GPU_PRODUCT_LABEL = 'nvidia.com/gpu.product';
/** @public */
export const MODEL_DIR = '/models';
/** @public */
export const MODEL_PATH = `${MODEL_DIR}/model.onnx`;
/** @public */
export const CONFIG_DIR = '/etc/inference';
/** @public */
export const MODEL_LOADER = 'model-loader';
/** @public */
export const ANNOTATION_CONFIG_HASH = 'cv.platform.tech/config-hash';
/** @public */
export const ANNOTATION_MODEL_URL = 'cv.platform.tech/model-url';

function meta(p: InferencePlatform, name: string) {
  return {
    name,
    namespace: p.metadata.namespace!,
    labels: childLabels(p, 'inference'),
    ownerReferences: [ownerReference(p)],
  };
}

/**
 * The spec the canary's servers are built from: the canary's model and
 * collection. A canary's model changes by rolling its pods (its collection
 * usually changes with it), and the autoscaler scales the platform, not it.
 *
 * @public
 */
export function canarySpec(spec: DefaultedSpec): DefaultedSpec | undefined {
  const c = spec.inference.canary;
  if (!c) return undefined;
  return {
    ...spec,
    inference: { ...spec.inference, modelUrl: c.modelUrl, collection: c.collection, modelUpdate: 'Rollout', canary: undefined, autoscaling: undefined },
  };
}

const configName = (p: InferencePlatform, track: Track) => (track === 'canary' ? names.inferenceCanaryConfig(p) : names.inferenceConfig(p));

/**
 * The server's CONFIG_FILE: keys are the environment variables its config
 * loader knows (it refuses any other key, and exits at start).
 */
/**
 * The ConfigMap key holding the model URL, which new pods' model-loader reads at start.
 *
 * @public
 */
export const CONFIG_KEY_MODEL_URL = 'MODEL_URL';

/** @public */
export function inferenceConfig(p: InferencePlatform, spec: DefaultedSpec) {
  const i = spec.inference;
  return {
    PORT: i.port,
    MODEL_PATH: modelPathFor(spec),
    QDRANT_URL: qdrantServiceUrl(p),
    QDRANT_COLLECTION: i.collection,
    QDRANT_REPLICATION_FACTOR: spec.qdrant.replicationFactor,
    BATCH_MAX_SIZE: i.batchMaxSize,
    BATCH_MAX_LATENCY_MS: i.batchMaxLatencyMs,
  };
}

/** @public */
export function inferenceConfigMap(p: InferencePlatform, spec: DefaultedSpec, track: Track = 'stable') {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(p, configName(p, track)),
    data: {
      'config.json': `${JSON.stringify(inferenceConfig(p, spec), null, 2)}\n`,
      // Outside config.json, whose hash rolls the pods: a hot-reloaded model does not.
      [CONFIG_KEY_MODEL_URL]: spec.inference.modelUrl,
    },
  };
}

/**
 * A PVC for large models (modelSource.mode=pvc); shared by all replicas.
 *
 * @public
 */
export function modelPersistentVolumeClaim(p: InferencePlatform, spec: DefaultedSpec) {
  const src = spec.inference.modelSource;
  if (src.mode !== 'pvc' || spec.inference.modelUrl.startsWith('pvc://')) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta(p, names.modelPvc(p)),
    spec: {
      accessModes: [src.accessMode ?? 'ReadWriteMany'],
      ...(src.storageClassName ? { storageClassName: src.storageClassName } : {}),
      resources: { requests: { storage: String(src.sizeLimit) } },
    },
  };
}

function modelVolume(p: InferencePlatform, spec: DefaultedSpec) {
  const i = spec.inference;
  if (i.modelUrl.startsWith('pvc://')) {
    const claim = i.modelUrl.slice('pvc://'.length).split('/')[0];
    return { name: 'model', persistentVolumeClaim: { claimName: claim, readOnly: true } };
  }
  if (i.modelSource.mode === 'pvc') {
    return { name: 'model', persistentVolumeClaim: { claimName: names.modelPvc(p) } };
  }
  return { name: 'model', emptyDir: { medium: 'Memory', sizeLimit: String(i.modelSource.sizeLimit) } };
}

/**
 * Where the loader puts the model and the server reads it: the path inside a
 * user PVC for pvc:// URLs; on the platform's model PVC, a directory per
 * model URL, so pods of two model versions (both ReplicaSets of a rollout)
 * never write or read each other's file; in memory, the one file.
 *
 * @public
 */
export function modelPathFor(spec: DefaultedSpec): string {
  const url = spec.inference.modelUrl;
  if (url.startsWith('pvc://')) {
    return `${MODEL_DIR}/${url.slice('pvc://'.length).split('/').slice(1).join('/')}`;
  }
  if (spec.inference.modelSource.mode === 'pvc') {
    // Hot reload keeps the pod template as it is: one path, whose loader
    // marker says which URL it holds.
    return hotReload(spec) ? `${MODEL_DIR}/current/model.onnx` : `${MODEL_DIR}/${shortHash(url)}/model.onnx`;
  }
  return MODEL_PATH;
}

/** The server's own download directory (hot reload), an emptyDir of its own. */
const DOWNLOAD_DIR = '/var/cache/model-downloads';

/**
 * Whether a new modelUrl reaches running servers by hot reload (pvc:// models live in the pod's volumes: they roll out).
 *
 * @public
 */
export function hotReload(spec: DefaultedSpec): boolean {
  return spec.inference.modelUpdate === 'HotReload' && !spec.inference.modelUrl.startsWith('pvc://');
}


function apiKeyEnv(spec: DefaultedSpec) {
  const ref = spec.qdrant.apiKeySecretRef;
  return ref
    ? [{ name: 'QDRANT_API_KEY', valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } }]
    : [];
}

/**
 * How the loader reaches s3:// models: the variables its fetch-model command
 * and the AWS SDK read. Static keys only from a Secret; without one the SDK
 * finds a web identity (IRSA) or the node role itself.
 *
 * @public
 */
export function s3LoaderEnv(spec: DefaultedSpec): any[] {
  const s3 = spec.inference.modelSource.s3;
  if (!s3) return [];
  const env: any[] = [];
  if (s3.endpoint) env.push({ name: 'S3_ENDPOINT', value: s3.endpoint });
  if (s3.region) env.push({ name: 'AWS_REGION', value: s3.region });
  if (s3.forcePathStyle !== undefined) env.push({ name: 'S3_FORCE_PATH_STYLE', value: String(s3.forcePathStyle) });
  const ref = s3.credentialsSecretRef;
  if (ref) {
    env.push(
      { name: 'AWS_ACCESS_KEY_ID', valueFrom: { secretKeyRef: { name: ref.name, key: ref.accessKeyIdKey ?? 'AWS_ACCESS_KEY_ID' } } },
      { name: 'AWS_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: ref.name, key: ref.secretAccessKeyKey ?? 'AWS_SECRET_ACCESS_KEY' } } },
    );
  }
  return env;
}

/**
 * The restricted Pod Security Standard. The user is numeric because the
 * kubelet cannot check that a named user (the image's `node`) is not root;
 * 1000 is that user in the node images, and fsGroup lets it write the model
 * volume.
 */
const POD_SECURITY = {
  runAsNonRoot: true,
  runAsUser: 1000,
  runAsGroup: 1000,
  fsGroup: 1000,
  seccompProfile: { type: 'RuntimeDefault' },
};
const CONTAINER_SECURITY = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

/**
 * On the Deployment: the last Raft term of Qdrant the operator has seen.
 *
 * @public
 */
export const ANNOTATION_SEEN_LEADER_TERM = 'cv.platform.tech/qdrant-leader-term';
/**
 * On its pod template: the term whose election restarted the servers (onLeaderChange: RestartInference).
 *
 * @public
 */
export const ANNOTATION_RESTARTED_FOR_TERM = 'cv.platform.tech/restarted-for-leader-term';

/**
 * The inference servers of one track: the stable model (spec.inference),
 * or, with the canary's spec, the canary. `replicas` is the track's share
 * of spec.inference.replicas.
 *
 * @public
 */
export function inferenceDeployment(p: InferencePlatform, spec: DefaultedSpec, track: Track = 'stable', replicas = spec.inference.replicas) {
  const i = spec.inference;
  const config = inferenceConfigMap(p, spec, track);
  const configHash = shortHash(config.data['config.json']);
  const fromPvc = i.modelUrl.startsWith('pvc://');
  const resources: any = {
    ...(i.resources?.requests ? { requests: { ...i.resources.requests } } : {}),
    ...(i.resources?.limits ? { limits: { ...i.resources.limits } } : {}),
  };
  let affinity: any;
  let tolerations: any[] | undefined;
  if (i.gpu.count > 0) {
    // Extended resources are requested through limits (requests default to them).
    resources.limits = { ...(resources.limits ?? {}), [GPU_RESOURCE]: String(i.gpu.count) };
    tolerations = [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }];
    if (i.gpu.type) {
      affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: GPU_PRODUCT_LABEL, operator: 'In', values: [i.gpu.type] }] },
            ],
          },
        },
      };
    }
  }
  if (!fromPvc && i.modelSource.mode === 'pvc' && i.modelSource.accessMode === 'ReadWriteOnce') {
    // A ReadWriteOnce volume attaches to one node: every server goes there.
    affinity = {
      ...affinity,
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selectorLabels(p, 'inference') } },
        ],
      },
    };
  }
  const initContainers = fromPvc
    ? []
    : [
        {
          name: MODEL_LOADER,
          image: i.modelSource.loaderImage,
          args: ['fetch-model'],
          env: [
            hotReload(spec)
              ? { name: 'MODEL_URL', valueFrom: { configMapKeyRef: { name: configName(p, track), key: CONFIG_KEY_MODEL_URL } } }
              : { name: 'MODEL_URL', value: i.modelUrl },
            { name: 'MODEL_PATH', value: modelPathFor(spec) },
            { name: 'PULL_TIMEOUT_SECONDS', value: String(i.modelSource.pullTimeoutSeconds) },
            { name: 'MAX_RETRIES', value: String(i.modelSource.maxRetries) },
            ...s3LoaderEnv(spec),
          ],
          volumeMounts: [{ name: 'model', mountPath: MODEL_DIR }],
          securityContext: CONTAINER_SECURITY,
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ];
  const container: any = {
    name: 'inference',
    image: i.image,
    ports: [{ name: 'http', containerPort: i.port }],
    env: [
      { name: 'MODEL_PATH', value: modelPathFor(spec) },
      { name: 'QDRANT_URL', value: qdrantServiceUrl(p) },
      { name: 'QDRANT_COLLECTION', value: i.collection },
      { name: 'PORT', value: String(i.port) },
      { name: 'CONFIG_FILE', value: `${CONFIG_DIR}/config.json` },
      // onnxruntime's CUDA provider for the GPUs asked for; the server falls
      // back to the CPU (and says why in its log and /readyz) when it cannot load.
      ...(i.gpu.count > 0 ? [{ name: 'EXECUTION_PROVIDER', value: 'cuda' }] : []),
      ...apiKeyEnv(spec),
      // A hot reload is fetched by the server itself, as the loader would.
      ...(hotReload(spec) ? [{ name: 'MODEL_CACHE_DIR', value: DOWNLOAD_DIR }, ...s3LoaderEnv(spec)] : []),
      // The stable collection must not miss the writes the split sends here.
      ...(track === 'canary' ? [{ name: 'WRITE_FORWARD_URL', value: `http://${names.inferenceStable(p)}.${p.metadata.namespace}.svc` }] : []),
    ],
    // Ready only once the model is loaded and Qdrant answers.
    readinessProbe: {
      httpGet: { path: i.readinessProbePath, port: 'http' },
      periodSeconds: 5,
      failureThreshold: 3,
    },
    livenessProbe: {
      httpGet: { path: '/healthz', port: 'http' },
      initialDelaySeconds: 10,
      periodSeconds: 10,
    },
    volumeMounts: [
      { name: 'model', mountPath: MODEL_DIR, readOnly: true },
      { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
      ...(hotReload(spec) ? [{ name: 'downloads', mountPath: DOWNLOAD_DIR }] : []),
    ],
    securityContext: CONTAINER_SECURITY,
    // A crash without a termination message leaves the last log lines
    // instead, which the platform's status then quotes.
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
  if (Object.keys(resources).length) container.resources = resources;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(p, track === 'canary' ? names.inferenceCanary(p) : names.inference(p)),
    spec: {
      replicas,
      progressDeadlineSeconds: i.progressDeadlineSeconds,
      selector: { matchLabels: track === 'canary' ? { ...selectorLabels(p, 'inference'), [LABEL_TRACK]: track } : selectorLabels(p, 'inference') },
      // A surge pod would need a spare GPU that a cluster sized for the
      // platform does not have: GPU platforms replace pods one at a time.
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: i.gpu.count > 0 ? { maxUnavailable: 1, maxSurge: 0 } : { maxUnavailable: 0, maxSurge: 1 },
      },
      template: {
        metadata: {
          labels: { ...childLabels(p, 'inference'), [LABEL_TRACK]: track },
          // A new config rolls the pods, and so does a new model unless it is hot-reloaded.
          annotations: { [ANNOTATION_CONFIG_HASH]: configHash, ...(hotReload(spec) ? {} : { [ANNOTATION_MODEL_URL]: i.modelUrl }) },
        },
        spec: {
          securityContext: POD_SECURITY,
          ...(i.serviceAccountName ? { serviceAccountName: i.serviceAccountName } : {}),
          // An empty list is dropped by the API server; sending one would make
          // the live object differ from it on every pass.
          ...(initContainers.length ? { initContainers } : {}),
          containers: [container],
          volumes: [
            modelVolume(p, spec),
            { name: 'config', configMap: { name: configName(p, track) } },
            // Where a hot-reloaded model is downloaded (and deleted once loaded).
            ...(hotReload(spec) ? [{ name: 'downloads', emptyDir: { sizeLimit: String(i.modelSource.sizeLimit) } }] : []),
          ],
          ...(affinity ? { affinity } : {}),
          ...(tolerations ? { tolerations } : {}),
        },
      },
    },
  };
}

/**
 * The platform's Service selects the ready servers of both tracks: with a
 * canary, requests split by ready servers (kube-proxy picks an endpoint at
 * random). With a track, a Service reaching only that track's servers.
 *
 * @public
 */
export function inferenceService(p: InferencePlatform, track?: Track) {
  const name = { canary: names.inferenceCanary(p), stable: names.inferenceStable(p), both: names.inference(p) }[track ?? 'both'];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(p, name),
    spec: {
      type: 'ClusterIP',
      selector: track ? { ...selectorLabels(p, 'inference'), [LABEL_TRACK]: track } : selectorLabels(p, 'inference'),
      ports: [{ name: 'http', port: 80, targetPort: 'http' }],
    },
  };
}
