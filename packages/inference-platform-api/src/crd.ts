/**
 * JSON-schema subset that CRD structural schemas accept.
 *
 * @public
 */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxProperties?: number;
  maxItems?: number;
  format?: string;
  anyOf?: JSONSchemaProps[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-validations'?: Array<{
    rule: string;
    message?: string;
    messageExpression?: string;
    fieldPath?: string;
    reason?: string;
  }>;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

// The same pattern Kubernetes generates for resource.Quantity fields.
/** @public */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** @public */
export const QDRANT_VERSION_PATTERN = '^v?[0-9]+\\.[0-9]+\\.[0-9]+$';

/**
 * Qdrant releases this operator supports: 1.8 and later 1.x. Before 1.5
 * there is no /readyz; 1.7.0-1.7.2 answer /readyz wrongly during rollouts;
 * the inference servers call `GET /collections/{name}/exists`, new in 1.8.
 *
 * @public
 */
export const QDRANT_MIN_VERSION = 'v1.8.0';
/** @public */
export const QDRANT_SUPPORTED_VERSIONS = 'v1.8.0 and later v1.x releases';

/**
 * The longest platform name whose children all get valid names: the Qdrant
 * StatefulSet `<name>-qdrant` must leave room for the 11 characters of the
 * controller-revision-hash label (`<name>-qdrant-<10 chars>`, a label value
 * of at most 63), and Services are DNS-1035 labels (start with a letter).
 *
 * @public
 */
export const PLATFORM_NAME_MAX_LENGTH = 45;
/** @public */
export const PLATFORM_NAME_PATTERN = '^[a-z]([-a-z0-9]*[a-z0-9])?$';

/** CEL: the n-th number (major 0, minor 1, patch 2) of a version string. */
const versionPart = (v: string, n: number) => `int(${v}.findAll('[0-9]+')[${n}])`;
const versionAtLeast = (a: string, b: string) =>
  `(${versionPart(a, 0)} > ${versionPart(b, 0)} || (${versionPart(a, 0)} == ${versionPart(b, 0)} && (${versionPart(a, 1)} > ${versionPart(b, 1)} || (${versionPart(a, 1)} == ${versionPart(b, 1)} && ${versionPart(a, 2)} >= ${versionPart(b, 2)}))))`;

/** @public */
export const MODEL_URL_PATTERN = '^(s3|https?|pvc|file)://.+$';

const quantity = (description: string, dflt?: string): JSONSchemaProps => ({
  description,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: QUANTITY_PATTERN,
  maxLength: 64,
  'x-kubernetes-int-or-string': true,
  ...(dflt !== undefined ? { default: dflt } : {}),
});

const resourceList = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  // Bounded so the API server can cost-check the CEL rule below.
  maxProperties: 8,
  additionalProperties: quantity('A resource quantity, e.g. 500m or 2Gi.'),
});

const resources = (what: string): JSONSchemaProps => ({
  type: 'object',
  description: `Compute resources of the ${what} container.`,
  properties: {
    requests: resourceList('Minimum resources required.'),
    limits: resourceList('Maximum resources allowed.'),
  },
  'x-kubernetes-validations': [
    {
      // quantity() needs a string; integers are valid quantities too.
      rule: "!has(self.requests) || !has(self.limits) || self.requests.all(k, !(k in self.limits) || quantity(string(self.limits[k])).compareTo(quantity(string(self.requests[k]))) >= 0)",
      message: `${what} resources: every limit must be >= its request`,
    },
  ],
});

const trackMetricsSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    requestsPerSecond: { type: 'number' },
    errorRate: { type: 'number', description: 'Share of requests answered 5xx, 0-1.' },
    p95LatencyMs: { type: 'number' },
  },
};

const conditionSchema: JSONSchemaProps = {
  type: 'object',
  required: ['type', 'status', 'reason', 'lastTransitionTime'],
  properties: {
    type: { type: 'string', description: 'Condition type, e.g. Ready.' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: { type: 'string', description: 'CamelCase machine-readable reason.' },
    message: { type: 'string', description: 'Human-readable details.' },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    observedGeneration: { type: 'integer', minimum: 0 },
  },
};

/** How an S3-compatible store is reached: shared by model downloads and backups. */
const s3Connection = (credentials: string): Record<string, JSONSchemaProps> => ({
  endpoint: {
    type: 'string',
    pattern: '^https?://.+$',
    maxLength: 2048,
    description: 'An S3-compatible endpoint (MinIO, Ceph, ...); AWS S3 when empty.',
  },
  region: { type: 'string', maxLength: 64, description: 'Region of the bucket; default us-east-1.' },
  forcePathStyle: {
    type: 'boolean',
    description: 'Path-style addressing; default true with an endpoint, false without.',
  },
  credentialsSecretRef: {
    type: 'object',
    description: credentials,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1 },
      accessKeyIdKey: { type: 'string', default: 'AWS_ACCESS_KEY_ID' },
      secretAccessKeyKey: { type: 'string', default: 'AWS_SECRET_ACCESS_KEY' },
    },
  },
});

/**
 * Five cron fields (or a macro such as `@daily`); the operator checks ranges and reports a bad one in status.
 *
 * @public
 */
export const CRON_SCHEDULE_PATTERN =
  '^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*,/?-]+( +[0-9A-Za-z*,/?-]+){4})$';
/** @public */
export const DURATION_PATTERN = '^([0-9]+(d|h|m))+$';

const backupSpec: JSONSchemaProps = {
  type: 'object',
  description:
    'Scheduled backups: the operator snapshots every collection on every Qdrant peer (a collection snapshot holds only its peer\'s shards), uploads each snapshot with its SHA-256 checksum to S3, prunes by retention and records each backup in status.backup. Restore with an InferencePlatformRestore.',
  required: ['schedule', 's3'],
  properties: {
    schedule: {
      type: 'string',
      description: 'Cron schedule in UTC: five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly.',
      pattern: CRON_SCHEDULE_PATTERN,
      maxLength: 128,
    },
    suspend: { type: 'boolean', description: 'Stop scheduled backups; "back up now" requests still run.' },
    retention: {
      type: 'object',
      description: 'Which successful backups stay in the bucket; older ones are deleted after each successful backup.',
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 1000, description: 'Keep at most this many (default 7).' },
        maxAge: { type: 'string', pattern: DURATION_PATTERN, maxLength: 32, description: 'Delete backups older than this, e.g. 168h or 30d.' },
      },
    },
    s3: {
      type: 'object',
      description: 'Where backups are stored: <prefix>/<namespace>/<platform>/<backup id>/ in the bucket.',
      required: ['bucket'],
      properties: {
        bucket: { type: 'string', minLength: 3, maxLength: 63, pattern: '^[a-z0-9][a-z0-9.-]+[a-z0-9]$' },
        prefix: { type: 'string', maxLength: 512, pattern: '^[^/].*[^/]$|^$', description: 'Key prefix, without leading or trailing slash.' },
        ...s3Connection('Secret (in the platform\'s namespace) with static keys, read by the operator. Without it the AWS SDK default chain of the operator\'s own environment applies.'),
      },
    },
  },
};

const backupRecordSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    trigger: { type: 'string', enum: ['Scheduled', 'Manual'] },
    startTime: { type: 'string', format: 'date-time' },
    completionTime: { type: 'string', format: 'date-time' },
    result: { type: 'string', enum: ['Succeeded', 'Failed'] },
    message: { type: 'string' },
    location: { type: 'string' },
    sizeBytes: { type: 'integer' },
    collections: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          points: { type: 'integer' },
          snapshots: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                pod: { type: 'string' },
                shards: { type: 'array', items: { type: 'integer' } },
                key: { type: 'string' },
                size: { type: 'integer' },
                checksum: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
};

const backupStatusSchema: JSONSchemaProps = {
  type: 'object',
  description: 'Backups of the Qdrant tier (spec.qdrant.backup).',
  properties: {
    lastScheduleTime: { type: 'string', format: 'date-time' },
    lastSuccessfulTime: { type: 'string', format: 'date-time' },
    nextScheduleTime: { type: 'string', format: 'date-time' },
    lastRequestHandled: { type: 'string', description: 'The cv.platform.tech/backup-requested-at value last acted on.' },
    running: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        trigger: { type: 'string', enum: ['Scheduled', 'Manual'] },
        startTime: { type: 'string', format: 'date-time' },
      },
    },
    history: { type: 'array', description: 'Newest first, the last 10.', items: backupRecordSchema },
  },
};

/** @public */
export const inferencePlatformSchema: JSONSchemaProps = {
  type: 'object',
  description:
    'An InferencePlatform is a Qdrant vector database plus a fleet of image-embedding inference servers, managed together.',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: {
      type: 'object',
      // The only metadata a CRD may constrain (CEL cannot bound its size).
      properties: {
        name: {
          type: 'string',
          description: `At most ${PLATFORM_NAME_MAX_LENGTH} characters, starting with a letter: children are named after it (<name>-qdrant-headless, the revision labels of the Qdrant peers).`,
          maxLength: PLATFORM_NAME_MAX_LENGTH,
          pattern: PLATFORM_NAME_PATTERN,
        },
      },
    },
    spec: {
      type: 'object',
      description: 'Desired state of the platform.',
      required: ['qdrant', 'inference'],
      properties: {
        qdrant: {
          type: 'object',
          description: 'The Qdrant vector database tier (a StatefulSet).',
          required: ['version'],
          properties: {
            version: {
              type: 'string',
              description: `Qdrant release, e.g. v1.14.1; selects the image tag. Supported: ${QDRANT_SUPPORTED_VERSIONS}; upgrades go one minor version at a time, never back.`,
              pattern: QDRANT_VERSION_PATTERN,
              maxLength: 32,
            },
            replicas: {
              type: 'integer',
              description: 'Number of Qdrant peers. 2 or more runs Qdrant in distributed mode.',
              minimum: 1,
              maximum: 100,
              default: 1,
            },
            replicationFactor: {
              type: 'integer',
              description:
                'Replicas of each shard in the collections the inference servers create (default 2 from two peers, else 1). At most spec.qdrant.replicas; collections that exist keep theirs.',
              minimum: 1,
              maximum: 100,
            },
            rebalance: {
              type: 'boolean',
              description: 'After a scale-up, move shards onto the new peers until every peer holds about as many replicas of each collection (default true).',
            },
            onLeaderChange: {
              type: 'string',
              enum: ['Ignore', 'RestartInference'],
              description:
                'After Qdrant elects a new Raft leader: Ignore (default; the inference servers reach Qdrant through its Service and any peer forwards writes to the leader) or RestartInference (a rolling restart of the inference servers that never goes below their ready count).',
            },
            backup: backupSpec,
            allowDowntime: {
              type: 'boolean',
              description:
                'Let an upgrade restart peers although a collection keeps one copy per shard (replication factor 1): its shards are unavailable while their peer restarts. Without it such an upgrade waits.',
            },
            storageClassName: {
              type: 'string',
              description: 'StorageClass of the Qdrant data volumes; empty uses the cluster default.',
            },
            storageSize: quantity('Size of each Qdrant data volume.', '10Gi'),
            image: {
              type: 'string',
              description: 'Image repository of Qdrant; the tag is spec.qdrant.version.',
              default: 'qdrant/qdrant',
            },
            resources: resources('qdrant'),
            apiKeySecretRef: {
              type: 'object',
              description: 'Secret holding the Qdrant API key, used by Qdrant and the inference servers.',
              required: ['name'],
              properties: {
                name: { type: 'string', minLength: 1 },
                key: { type: 'string', default: 'api-key' },
              },
            },
          },
          'x-kubernetes-validations': [
            {
              rule: '!has(self.replicationFactor) || self.replicationFactor <= (has(self.replicas) ? self.replicas : 1)',
              message:
                'spec.qdrant.replicationFactor must not exceed spec.qdrant.replicas: each replica of a shard needs its own peer',
              fieldPath: '.replicationFactor',
              reason: 'FieldValueInvalid',
            },
            {
              rule: 'quantity(string(self.storageSize)).isGreaterThan(quantity("0"))',
              message: 'spec.qdrant.storageSize must be greater than 0',
              fieldPath: '.storageSize',
            },
            {
              rule: `${versionPart('self.version', 0)} == 1 && ${versionPart('self.version', 1)} >= 8`,
              messageExpression: `'spec.qdrant.version ' + self.version + ' is not supported: supported Qdrant versions are ${QDRANT_SUPPORTED_VERSIONS}'`,
              fieldPath: '.version',
              reason: 'FieldValueInvalid',
            },
            {
              rule: versionAtLeast('self.version', 'oldSelf.version'),
              messageExpression:
                "'spec.qdrant.version cannot go back from ' + oldSelf.version + ' to ' + self.version + ': Qdrant does not support downgrades'",
              fieldPath: '.version',
              reason: 'FieldValueForbidden',
            },
            {
              rule: `${versionPart('self.version', 0)} != ${versionPart('oldSelf.version', 0)} || ${versionPart('self.version', 1)} <= ${versionPart('oldSelf.version', 1)} + 1`,
              messageExpression:
                "'spec.qdrant.version cannot jump from ' + oldSelf.version + ' to ' + self.version + ': Qdrant upgrades one minor version at a time, so go through each minor release in between'",
              fieldPath: '.version',
              reason: 'FieldValueForbidden',
            },
            {
              rule: "(has(self.storageClassName) ? self.storageClassName : '') == (has(oldSelf.storageClassName) ? oldSelf.storageClassName : '')",
              message:
                'spec.qdrant.storageClassName is immutable: existing Qdrant volumes cannot move to another StorageClass (create a new platform and restore a snapshot into it)',
              fieldPath: '.storageClassName',
              reason: 'FieldValueForbidden',
            },
            {
              rule: 'quantity(string(self.storageSize)).compareTo(quantity(string(oldSelf.storageSize))) >= 0',
              messageExpression:
                "'spec.qdrant.storageSize cannot shrink from ' + string(oldSelf.storageSize) + ' to ' + string(self.storageSize) + ': volumes can only grow'",
              fieldPath: '.storageSize',
              reason: 'FieldValueForbidden',
            },
          ],
        },
        inference: {
          type: 'object',
          description: 'The inference tier (a Deployment of the inference-service).',
          required: ['image', 'modelUrl'],
          properties: {
            image: {
              type: 'string',
              description: 'Image of the inference-service.',
              minLength: 1,
            },
            modelUrl: {
              type: 'string',
              description: 'Where the ONNX model is loaded from: s3://, http(s)://, pvc://<claim>/<path> or file://.',
              pattern: MODEL_URL_PATTERN,
              maxLength: 2048,
            },
            replicas: {
              type: 'integer',
              description: 'Number of inference servers.',
              minimum: 0,
              maximum: 1000,
              default: 1,
            },
            resources: resources('inference'),
            modelSource: {
              type: 'object',
              description: 'How the model is pre-loaded before the server starts.',
              default: {},
              properties: {
                mode: {
                  type: 'string',
                  enum: ['emptyDir', 'pvc'],
                  default: 'emptyDir',
                  description: 'emptyDir (in memory) for small models, pvc for large ones.',
                },
                sizeLimit: quantity('Size of the model volume.', '1Gi'),
                storageClassName: {
                  type: 'string',
                  description: 'StorageClass of the model PVC (mode pvc).',
                },
                pullTimeoutSeconds: {
                  type: 'integer',
                  minimum: 1,
                  maximum: 86400,
                  default: 600,
                  description: 'Time allowed for one attempt to download the model; the loader enforces it.',
                },
                maxRetries: {
                  type: 'integer',
                  minimum: 0,
                  maximum: 20,
                  default: 3,
                  description:
                    'Download attempts after the first (backing off 2 s, 4 s, ... 30 s). Then the loader gives up: the platform is Failed with reason ModelDownloadFailed and the last error, and the server waits unready instead of crash-looping, until the model or its source changes.',
                },
                warmupTimeoutSeconds: {
                  type: 'integer',
                  minimum: 1,
                  maximum: 86400,
                  default: 600,
                  description:
                    'Time a started server may take to become ready (load the model, warm it up, reach Qdrant); past it the platform is Failed (nothing serves) or Degraded with reason WarmupTimeout.',
                },
                loaderImage: {
                  type: 'string',
                  description:
                    'Image of the init container that downloads the model; defaults to spec.inference.image (whose fetch-model command downloads s3/http(s)/file URLs).',
                },
                accessMode: {
                  type: 'string',
                  enum: ['ReadWriteMany', 'ReadWriteOnce'],
                  description:
                    'Access mode of the model PVC (mode pvc). ReadWriteMany (the default when unset) lets servers spread over nodes; ReadWriteOnce suits block storage (e.g. gp2) and places every server on the node the volume is attached to.',
                },
                s3: {
                  type: 'object',
                  description: 'Where and how s3:// models are fetched.',
                  properties: s3Connection('Secret with static keys. Without it the AWS SDK default chain applies: a web identity (IRSA: spec.inference.serviceAccountName) or the node role.'),
                },
              },
            },
            serviceAccountName: {
              type: 'string',
              maxLength: 253,
              description: 'ServiceAccount of the inference pods, e.g. one annotated for IRSA to read s3:// models.',
            },
            gpu: {
              type: 'object',
              description: 'GPU requirements of each inference server.',
              properties: {
                count: {
                  type: 'integer',
                  minimum: 0,
                  maximum: 16,
                  default: 0,
                  description: 'nvidia.com/gpu per server.',
                },
                type: {
                  type: 'string',
                  description: 'Required GPU product (node label nvidia.com/gpu.product), e.g. NVIDIA-A100-SXM4-40GB.',
                  maxLength: 63,
                },
              },
              'x-kubernetes-validations': [
                {
                  rule: '!has(self.type) || self.count > 0',
                  message: 'spec.inference.gpu.type needs spec.inference.gpu.count > 0',
                  fieldPath: '.type',
                },
              ],
            },
            readinessProbePath: {
              type: 'string',
              pattern: '^/',
              default: '/readyz',
              description: 'HTTP path that answers 200 once the model is loaded.',
            },
            port: {
              type: 'integer',
              minimum: 1,
              maximum: 65535,
              default: 8080,
            },
            collection: {
              type: 'string',
              default: 'images',
              pattern: '^[A-Za-z0-9_-]{1,128}$',
              description: 'Qdrant collection the servers write to.',
            },
            batchMaxSize: { type: 'integer', minimum: 1, maximum: 256, default: 16 },
            batchMaxLatencyMs: { type: 'integer', minimum: 0, maximum: 10000, default: 5 },
            progressDeadlineSeconds: {
              type: 'integer',
              description: 'Seconds a rollout of the inference servers may make no progress before the platform reports it stalled (ProgressDeadlineExceeded).',
              minimum: 5,
              maximum: 86400,
              default: 600,
            },
            modelUpdate: {
              type: 'string',
              enum: ['HotReload', 'Rollout'],
              default: 'HotReload',
              description:
                'How a new modelUrl reaches running servers. HotReload: each server fetches and loads it beside the old model and swaps, with no pod restart (the model volume must hold two models while it does). Rollout: a rolling update of the pods. pvc:// models always roll out.',
            },
            canary: {
              type: 'object',
              description:
                'A second model version beside modelUrl. Its servers are a Deployment of their own holding weight percent of spec.inference.replicas (at least one while the weight is above 0); the inference Service selects the ready servers of both, so requests split by ready servers, and a canary that never turns ready receives none. Its embeddings go to its own collection. Promote: set modelUrl and collection to the canary\'s and remove canary; roll back: weight 0 or remove canary.',
              required: ['modelUrl', 'weight', 'collection'],
              properties: {
                modelUrl: { type: 'string', pattern: MODEL_URL_PATTERN, maxLength: 2048, description: 'The canary model, in the forms modelUrl takes.' },
                weight: { type: 'integer', minimum: 0, maximum: 100, description: 'Percent of the servers, and so of the requests, on the canary.' },
                collection: {
                  type: 'string',
                  pattern: '^[A-Za-z0-9_-]{1,128}$',
                  description: 'Qdrant collection of the canary\'s embeddings (vectors of two models are not comparable); writes to either version reach both collections.',
                },
              },
            },
            autoscaling: {
              type: 'object',
              description:
                'Scales the inference servers: a HorizontalPodAutoscaler (metric cpu) or a KEDA ScaledObject on the servers\' own Prometheus metrics (queueDepth, requestsPerSecond; needs KEDA). Both scale this InferencePlatform through its scale subresource, so spec.inference.replicas shows what the autoscaler chose; leave it out of GitOps manifests.',
              required: ['maxReplicas', 'target'],
              properties: {
                minReplicas: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
                maxReplicas: { type: 'integer', minimum: 1, maximum: 1000 },
                metric: {
                  type: 'string',
                  enum: ['cpu', 'queueDepth', 'requestsPerSecond'],
                  default: 'cpu',
                  description:
                    'cpu: average CPU use in percent of the servers\' CPU request; queueDepth: images waiting per server (inference_queue_depth); requestsPerSecond: HTTP requests per second per server (inference_http_requests_total).',
                },
                target: { type: 'integer', minimum: 1, maximum: 100000, description: 'The value per server the autoscaler keeps the metric at.' },
                prometheusServerAddress: {
                  type: 'string',
                  pattern: '^https?://',
                  description: 'The Prometheus KEDA queries for queueDepth and requestsPerSecond, e.g. http://prometheus-operated.monitoring:9090.',
                },
              },
              'x-kubernetes-validations': [
                {
                  rule: 'self.minReplicas <= self.maxReplicas',
                  message: 'spec.inference.autoscaling.minReplicas must not exceed maxReplicas',
                  fieldPath: '.minReplicas',
                },
                {
                  rule: "self.metric == 'cpu' || has(self.prometheusServerAddress)",
                  message: 'spec.inference.autoscaling.prometheusServerAddress is required for the queueDepth and requestsPerSecond metrics (KEDA queries Prometheus)',
                  fieldPath: '.prometheusServerAddress',
                },
              ],
            },
          },
          'x-kubernetes-validations': [
            {
              rule: "!has(self.canary) || self.canary.collection != (has(self.collection) ? self.collection : 'images')",
              message: 'spec.inference.canary.collection must differ from spec.inference.collection: embeddings of two models never share a collection',
              fieldPath: '.canary.collection',
            },
            {
              rule: '!has(self.canary) || self.canary.modelUrl != self.modelUrl',
              message: 'spec.inference.canary.modelUrl is the model already serving; name another model, or remove canary to promote',
              fieldPath: '.canary.modelUrl',
            },
            {
              rule: "!has(self.canary) || !self.canary.modelUrl.startsWith('pvc://') || self.canary.modelUrl.matches('^pvc://[a-z0-9]([-a-z0-9]*[a-z0-9])?/.+$')",
              message: 'spec.inference.canary.modelUrl: pvc:// URLs must be pvc://<claim-name>/<path>',
              fieldPath: '.canary.modelUrl',
            },
            {
              rule: "!self.modelUrl.startsWith('pvc://') || self.modelUrl.matches('^pvc://[a-z0-9]([-a-z0-9]*[a-z0-9])?/.+$')",
              message: 'spec.inference.modelUrl: pvc:// URLs must be pvc://<claim-name>/<path>',
              fieldPath: '.modelUrl',
            },
            {
              rule: "!has(self.autoscaling) || self.autoscaling.metric != 'cpu' || (has(self.resources) && has(self.resources.requests) && 'cpu' in self.resources.requests)",
              message: 'spec.inference.resources.requests.cpu is required to autoscale on cpu (utilization is measured against the request)',
              fieldPath: '.autoscaling',
            },
          ],
        },
      },
    },
    status: {
      type: 'object',
      description: 'Observed state, written by the operator.',
      properties: {
        phase: {
          type: 'string',
          enum: ['Pending', 'Loading', 'Ready', 'Failed', 'Degraded'],
        },
        message: { type: 'string' },
        observedGeneration: { type: 'integer' },
        conditions: {
          type: 'array',
          items: conditionSchema,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
        },
        qdrantReplicas: { type: 'integer' },
        qdrantReadyReplicas: { type: 'integer' },
        inferenceReplicas: { type: 'integer' },
        inferenceReadyReplicas: { type: 'integer' },
        qdrantReadiness: { type: 'string' },
        inferenceReadiness: { type: 'string' },
        inferenceSelector: { type: 'string' },
        canary: {
          type: 'object',
          description: "The canary's servers, its share of the traffic, and both versions' request metrics.",
          properties: {
            modelUrl: { type: 'string' },
            collection: { type: 'string' },
            weight: { type: 'integer' },
            replicas: { type: 'integer' },
            readyReplicas: { type: 'integer' },
            effectiveWeight: { type: 'integer', description: 'Percent of the ready servers that run the canary: its share of the requests.' },
            state: { type: 'string', enum: ['Progressing', 'Serving', 'Failed', 'Paused'] },
            message: { type: 'string' },
            metrics: {
              type: 'object',
              properties: {
                stable: trackMetricsSchema,
                canary: trackMetricsSchema,
                windowSeconds: { type: 'integer' },
                observedAt: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
        model: {
          type: 'object',
          description: 'Which model the ready inference servers serve, read from the pods.',
          properties: {
            desired: { type: 'string' },
            loaded: { type: 'object', additionalProperties: { type: 'integer' } },
          },
        },
        qdrant: {
          type: 'object',
          description: 'What the operator knows of the Qdrant tier beyond its pods.',
          properties: {
            version: { type: 'string', description: 'What the peers run, from their images; spec.qdrant.version is the target.' },
            scaleDown: {
              type: 'object',
              description: 'A scale-down in progress: leaving peers are drained and removed from Raft before their pods go.',
              properties: {
                fromReplicas: { type: 'integer' },
                toReplicas: { type: 'integer' },
                step: { type: 'string', enum: ['Draining', 'RemovingPeer', 'Blocked', 'Done'] },
                reason: { type: 'string' },
                message: { type: 'string' },
                leavingPeers: { type: 'array', items: { type: 'string' } },
                transfersInFlight: { type: 'integer' },
              },
            },
          },
        },
        backup: backupStatusSchema,
        qdrantCluster: {
          type: 'object',
          properties: {
            reachable: { type: 'boolean' },
            peerId: { type: 'string' },
            peers: {
              type: 'array',
              items: {
                type: 'object',
                properties: { id: { type: 'string' }, uri: { type: 'string' } },
              },
            },
            raftLeader: { type: 'string' },
            raftTerm: { type: 'integer' },
            raftCommit: { type: 'integer' },
            pendingOperations: { type: 'integer' },
            consensus: { type: 'string', description: "Qdrant's consensus thread: working, stopped, stopped_with_err." },
            collections: {
              type: 'array',
              description: "Each collection's shards as Qdrant reports them.",
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  replicationFactor: { type: 'integer' },
                  shards: { type: 'integer' },
                  replicas: { type: 'object', additionalProperties: { type: 'integer' } },
                  perPeer: { type: 'object', description: 'Replicas per Raft peer id.', additionalProperties: { type: 'integer' } },
                  transfers: { type: 'integer' },
                  problems: { type: 'array', items: { type: 'string' } },
                },
              },
            },
            lastChecked: { type: 'string', format: 'date-time' },
            message: { type: 'string' },
          },
        },
      },
    },
  },
};
