import { Entity } from '@backstage/catalog-model';
import {
  CATALOG_ENTITY_ANNOTATION,
  ENTITY_CLUSTER_ANNOTATION,
  ENTITY_PLATFORM_ANNOTATION,
  InferencePlatform,
  OWNER_ANNOTATION,
  PLATFORM_ENTITY_TYPE,
  platformEntityName,
  platformPagePath,
  stringifyPlatformRef,
} from '@cv-platform/plugin-inference-platform-common';

export const SYSTEM_ANNOTATION = 'cv.platform.tech/system';
/** The label the operator puts on every child of a platform (pods included). */
const PLATFORM_LABEL = 'cv.platform.tech/platform';

export interface PlatformEntityDefaults {
  appBaseUrl: string;
  defaultOwner: string;
  defaultSystem?: string;
  providerName: string;
  /** The platform's cluster. */
  cluster: string;
  /** Whether the portal manages several clusters: names, references and links then carry the cluster. */
  severalClusters?: boolean;
}

/** The catalog Resource mirroring one InferencePlatform. */
export function platformToEntity(p: InferencePlatform, d: PlatformEntityDefaults): Entity {
  const ns = p.metadata.namespace!;
  const name = p.metadata.name!;
  const a = p.metadata.annotations ?? {};
  const cluster = d.severalClusters ? d.cluster : undefined;
  const ref = stringifyPlatformRef({ cluster, namespace: ns, name });
  const location = `${d.providerName}:${ref}`;
  const linked = a[CATALOG_ENTITY_ANNOTATION];
  const system = a[SYSTEM_ANNOTATION] ?? d.defaultSystem;
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Resource',
    metadata: {
      name: platformEntityName(ns, name, cluster),
      title: `${name} (${cluster ? `${cluster}/` : ''}${ns})`,
      description: `InferencePlatform ${ref}: Qdrant ${p.spec.qdrant.version} x${p.spec.qdrant.replicas ?? 1}, ${p.spec.inference.replicas ?? 1} inference servers on ${p.spec.inference.modelUrl}`,
      annotations: {
        'backstage.io/managed-by-location': location,
        'backstage.io/managed-by-origin-location': location,
        [ENTITY_PLATFORM_ANNOTATION]: ref,
        [ENTITY_CLUSTER_ANNOTATION]: d.cluster,
        // The stock Kubernetes tab finds the platform's objects by these: every child carries the label.
        'backstage.io/kubernetes-label-selector': `${PLATFORM_LABEL}=${name}`,
        'backstage.io/kubernetes-namespace': ns,
      },
      links: [
        { url: `${d.appBaseUrl}${platformPagePath(ns, name, cluster)}`, title: 'Platform dashboard', icon: 'dashboard' },
      ],
      tags: ['inference-platform', 'qdrant'],
    },
    spec: {
      type: PLATFORM_ENTITY_TYPE,
      owner: a[OWNER_ANNOTATION] ?? d.defaultOwner,
      ...(system ? { system } : {}),
      ...(linked ? { dependencyOf: [linked] } : {}),
    },
  };
}
