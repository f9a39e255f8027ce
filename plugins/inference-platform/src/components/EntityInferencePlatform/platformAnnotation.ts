import { Entity } from '@backstage/catalog-model';
import {
  ENTITY_PLATFORM_ANNOTATION,
  parsePlatformRef,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';

/**
 * The platform an entity names in its annotation,
 * `[<cluster>/]<namespace>/<name>`, if the value is well formed; without a
 * cluster, the backend's default one.
 */
export function platformOfEntity(entity: Entity): PlatformRef | undefined {
  return parsePlatformRef(
    entity.metadata.annotations?.[ENTITY_PLATFORM_ANNOTATION],
  );
}

/**
 * For EntitySwitch: true when the entity names a platform as
 * `cv.platform.tech/inference-platform: [<cluster>/]<namespace>/<name>`.
 *
 * @public
 */
export function isInferencePlatformAvailable(entity: Entity): boolean {
  return platformOfEntity(entity) !== undefined;
}
