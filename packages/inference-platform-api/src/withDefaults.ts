import { AutoscalingSpec, InferencePlatformSpec, S3SourceSpec } from './types';

/** @public */
export type DefaultedSpec = {
  qdrant: Required<
    Omit<InferencePlatformSpec['qdrant'], 'storageClassName' | 'resources' | 'apiKeySecretRef' | 'backup'>
  > &
    Pick<InferencePlatformSpec['qdrant'], 'storageClassName' | 'resources' | 'apiKeySecretRef' | 'backup'>;
  inference: Required<
    Omit<InferencePlatformSpec['inference'], 'resources' | 'gpu' | 'modelSource' | 'serviceAccountName' | 'autoscaling' | 'canary'>
  > &
    Pick<InferencePlatformSpec['inference'], 'resources' | 'serviceAccountName' | 'canary'> & {
      autoscaling?: Required<Omit<AutoscalingSpec, 'prometheusServerAddress'>> & Pick<AutoscalingSpec, 'prometheusServerAddress'>;
      gpu: { count: number; type?: string };
      modelSource: Required<
        Omit<
          NonNullable<InferencePlatformSpec['inference']['modelSource']>,
          'storageClassName' | 'loaderImage' | 's3' | 'accessMode'
        >
      > & { storageClassName?: string; loaderImage: string; s3?: S3SourceSpec; accessMode?: 'ReadWriteMany' | 'ReadWriteOnce' };
    };
};

/**
 * Applies the same defaults as the CRD schema. The API server defaults stored
 * objects already; the operator applies them again so that objects from older
 * CRD versions or from tests never reach the reconciler half-filled.
 *
 * @public
 */
export function withDefaults(spec: InferencePlatformSpec): DefaultedSpec {
  const q = spec.qdrant;
  const i = spec.inference;
  return {
    qdrant: {
      ...q,
      replicas: q.replicas ?? 1,
      replicationFactor: q.replicationFactor ?? ((q.replicas ?? 1) >= 2 ? 2 : 1),
      allowDowntime: q.allowDowntime ?? false,
      onLeaderChange: q.onLeaderChange ?? 'Ignore',
      rebalance: q.rebalance ?? true,
      storageSize: q.storageSize ?? '10Gi',
      image: q.image ?? 'qdrant/qdrant',
      apiKeySecretRef: q.apiKeySecretRef
        ? { name: q.apiKeySecretRef.name, key: q.apiKeySecretRef.key ?? 'api-key' }
        : undefined,
    },
    inference: {
      ...i,
      replicas: i.replicas ?? 1,
      readinessProbePath: i.readinessProbePath ?? '/readyz',
      port: i.port ?? 8080,
      collection: i.collection ?? 'images',
      batchMaxSize: i.batchMaxSize ?? 16,
      batchMaxLatencyMs: i.batchMaxLatencyMs ?? 5,
      progressDeadlineSeconds: i.progressDeadlineSeconds ?? 600,
      modelUpdate: i.modelUpdate ?? 'HotReload',
      autoscaling: i.autoscaling
        ? { ...i.autoscaling, minReplicas: i.autoscaling.minReplicas ?? 1, metric: i.autoscaling.metric ?? 'cpu' }
        : undefined,
      gpu: { count: i.gpu?.count ?? 0, type: i.gpu?.type },
      modelSource: {
        mode: i.modelSource?.mode ?? 'emptyDir',
        sizeLimit: i.modelSource?.sizeLimit ?? '1Gi',
        storageClassName: i.modelSource?.storageClassName,
        pullTimeoutSeconds: i.modelSource?.pullTimeoutSeconds ?? 600,
        maxRetries: i.modelSource?.maxRetries ?? 3,
        warmupTimeoutSeconds: i.modelSource?.warmupTimeoutSeconds ?? 600,
        loaderImage: i.modelSource?.loaderImage ?? i.image,
        s3: i.modelSource?.s3,
        accessMode: i.modelSource?.accessMode,
      },
    },
  };
}
