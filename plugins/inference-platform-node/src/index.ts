/**
 * Node library of the inference-platform backend plugin: what modules of the
 * plugin (or of the catalog) share with it.
 *
 * @packageDocumentation
 */
export {
  embeddedOperatorServiceRef,
  createEmbeddedOperator,
  clusterDetails,
  createEmbeddedOperatorServiceFactory,
  loadClusterKubeConfig,
  managedClusterNames,
} from './operatorServiceRef';
export type {
  ClusterSupplier,
  EmbeddedCluster,
  EmbeddedOperator,
  SuppliedCluster,
} from './operatorServiceRef';
export { platformPermissionResourceRef } from './platformPermissionResourceRef';
export type { PlatformResource } from './platformPermissionResourceRef';
export { inferencePlatformOperatorExtensionPoint, inferencePlatformCatalogExtensionPoint } from './extensionPoints';
export type {
  InferencePlatformOperatorExtensionPoint,
  InferencePlatformCatalogExtensionPoint,
  PlatformEntityTransformer,
} from './extensionPoints';
