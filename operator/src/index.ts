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
export * from './metrics/OperatorMetrics';
export * from './runtime/SharedInformers';
export * from './kube/loadKubeConfig';
export * from './qdrant/qdrantUrlTemplate';
