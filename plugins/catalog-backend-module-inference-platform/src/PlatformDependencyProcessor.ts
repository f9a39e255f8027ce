import {
  Entity,
  getCompoundEntityRef,
  parseEntityRef,
  RELATION_DEPENDENCY_OF,
  RELATION_DEPENDS_ON,
} from '@backstage/catalog-model';
import {
  CatalogProcessor,
  CatalogProcessorEmit,
  LocationSpec,
  processingResult,
} from '@backstage/plugin-catalog-node';
import {
  ENTITY_PLATFORM_ANNOTATION,
  parsePlatformRef,
  platformEntityRef,
} from '@cv-platform/plugin-inference-platform-common';

/** The clusters the portal manages, as far as entity names depend on them. */
export interface PlatformClusters {
  /** Meant by a reference without a cluster. */
  defaultCluster: string;
  /** Entity names carry the cluster only when there are several. */
  several: boolean;
}

/**
 * An entity that names the platform it uses (annotation
 * `cv.platform.tech/inference-platform: [<cluster>/]<namespace>/<name>`) depends on that
 * platform's Resource: the catalog shows the relation both ways, as it does
 * for `spec.dependsOn`.
 */
export class PlatformDependencyProcessor implements CatalogProcessor {
  constructor(
    private readonly clusters: PlatformClusters = {
      defaultCluster: 'default',
      several: false,
    },
  ) {}

  getProcessorName(): string {
    return 'InferencePlatformDependencyProcessor';
  }

  async postProcessEntity(
    entity: Entity,
    _location: LocationSpec,
    emit: CatalogProcessorEmit,
  ): Promise<Entity> {
    const ref = parsePlatformRef(
      entity.metadata.annotations?.[ENTITY_PLATFORM_ANNOTATION],
    );
    if (!ref) return entity;
    const cluster = ref.cluster ?? this.clusters.defaultCluster;
    // One cluster: its entities are named without it, whether or not the reference names it.
    const named =
      this.clusters.several || cluster !== this.clusters.defaultCluster
        ? cluster
        : undefined;
    const self = getCompoundEntityRef(entity);
    const platform = parseEntityRef(
      platformEntityRef(ref.namespace, ref.name, named),
    );
    emit(
      processingResult.relation({
        source: self,
        type: RELATION_DEPENDS_ON,
        target: platform,
      }),
    );
    emit(
      processingResult.relation({
        source: platform,
        type: RELATION_DEPENDENCY_OF,
        target: self,
      }),
    );
    return entity;
  }
}
