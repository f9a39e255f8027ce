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
  platformEntityRef,
} from '@cv-platform/plugin-inference-platform-common';

/**
 * An entity that names the platform it uses (annotation
 * `cv.platform.tech/inference-platform: <namespace>/<name>`) depends on that
 * platform's Resource: the catalog shows the relation both ways, as it does
 * for `spec.dependsOn`.
 */
export class PlatformDependencyProcessor implements CatalogProcessor {
  getProcessorName(): string {
    return 'InferencePlatformDependencyProcessor';
  }

  async postProcessEntity(
    entity: Entity,
    _location: LocationSpec,
    emit: CatalogProcessorEmit,
  ): Promise<Entity> {
    const value = entity.metadata.annotations?.[ENTITY_PLATFORM_ANNOTATION];
    const [namespace, name, ...rest] = value?.split('/') ?? [];
    if (!namespace || !name || rest.length) return entity;
    const self = getCompoundEntityRef(entity);
    const platform = parseEntityRef(platformEntityRef(namespace, name));
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
