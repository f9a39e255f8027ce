import { createExtensionPoint } from '@backstage/backend-plugin-api';
import type { Entity } from '@backstage/catalog-model';
import type { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import type { ChildMutator, KubeCredentialsProvider } from '@cv-platform/operator';

/**
 * Customises the operator embedded in the inference-platform backend plugin.
 *
 * @public
 */
export interface InferencePlatformOperatorExtensionPoint {
  /**
   * Changes every child object (StatefulSet, Deployments, Services,
   * ConfigMaps, PVCs, PDBs, HPAs, monitors) before the operator applies it:
   * labels a cluster policy demands, imagePullSecrets, a priorityClassName.
   * Registered before the operator's first pass, so no child is ever applied
   * without it. Must be deterministic.
   */
  addChildMutator(mutator: ChildMutator): void;

  /**
   * Mints the operator's bearer token for its cluster instead of the
   * configured user: a cloud's workload identity (EKS, GKE, AKS) or a token
   * broker. The cluster itself (URL, CA) stays configured
   * (`inferencePlatform.kubernetes`). Asked before the operator's first
   * request (the operator starts once every plugin has initialized), at
   * every credential refresh (`credentialRefreshSeconds`) and again after a
   * 401. One provider per backend.
   */
  setCredentialsProvider(provider: KubeCredentialsProvider): void;
}

/**
 * Extension point of the inference-platform backend plugin for its modules.
 *
 * @public
 */
export const inferencePlatformOperatorExtensionPoint = createExtensionPoint<InferencePlatformOperatorExtensionPoint>({
  // Not 'inference-platform.operator': that is the embedded operator service's id.
  id: 'inference-platform.operator-hooks',
});

/**
 * Adjusts the catalog Resource of one platform before it is published.
 *
 * @public
 */
export type PlatformEntityTransformer = (entity: Entity, platform: InferencePlatformV1beta1) => Entity;

/**
 * Customises the catalog module's platform entities.
 *
 * @public
 */
export interface InferencePlatformCatalogExtensionPoint {
  /** Runs over every platform's Resource entity, in the order added (tags, links, another owner, ...). */
  addEntityTransformer(transformer: PlatformEntityTransformer): void;
}

/**
 * Extension point of the catalog module `inference-platform` for other catalog modules.
 *
 * @public
 */
export const inferencePlatformCatalogExtensionPoint = createExtensionPoint<InferencePlatformCatalogExtensionPoint>({
  id: 'catalog.inference-platform',
});
