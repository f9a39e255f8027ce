/**
 * The InferencePlatform operator core: no Backstage imports, embeddable in the
 * portal's backend or run standalone.
 *
 * @packageDocumentation
 */
export * from './kube/KubeClient';
export * from './runtime/WorkQueue';
export * from './runtime/RateLimiter';
export * from './runtime/Informer';
export * from './leader/LeaderElector';
export * from './reconcile/labels';
export * from './reconcile/qdrantChildren';
export * from './reconcile/inferenceChildren';
export * from './reconcile/isSubset';
export * from './logger';
export * from './Operator';
export * from './reconcile/PlatformReconciler';
export type { ChildMutator } from './reconcile/ChildMutator';
export * from './status/computeStatus';
export * from './status/conditions';
export * from './qdrant/QdrantAdminClient';
export * from './qdrant/apiServerProxyRequest';
export * from './events/EventRecorder';
export * from './events/PendingEvent';
export * from './metrics/OperatorMetrics';
export * from './runtime/SharedInformers';
export * from './kube/loadKubeConfig';
export * from './qdrant/qdrantUrlTemplate';
export type { QdrantRequest, QdrantDownload } from './qdrant/QdrantPeerClient';
export type { InferenceServerState } from './inference/InferenceServerStates';
export type { BackupController } from './backup/BackupController';
export type { ConversionWebhook } from './webhook/ConversionWebhook';
export type { ConversionWebhookOptions } from './webhook/ConversionWebhook';
export type { ObservedCanary } from './status/canaryStatus';
export type { QdrantPeerClient } from './qdrant/QdrantPeerClient';
export type { ReadServerMetrics } from './inference/TrackMetrics';
export type { ReadServerState } from './inference/InferenceServerStates';
export type { ReloadFailure } from './inference/ModelHotReload';
export type { ReloadServerModel } from './inference/InferenceServerStates';
export type { RestoreController } from './backup/RestoreController';
export type { BackupControllerOptions } from './backup/BackupController';
export type { ClusterOperation } from './qdrant/QdrantPeerClient';
export type { CollectionLayout } from './qdrant/QdrantPeerClient';
export type { ConversionWebhookState } from './webhook/ConversionWebhook';
export type { PeerClusterStatus } from './qdrant/QdrantPeerClient';
export type { PlatformLocks } from './backup/BackupController';
export type { RestoreControllerOptions } from './backup/RestoreController';
export type { SnapshotDescription } from './qdrant/QdrantPeerClient';
export type { QdrantAccess } from './backup/takeBackup';
export type { ShardReplica } from './qdrant/QdrantPeerClient';
export type { ShardTransfer } from './qdrant/QdrantPeerClient';
export type { ShardState } from './qdrant/QdrantPeerClient';
