import { Entity } from '@backstage/catalog-model';
import { ENTITY_PLATFORM_ANNOTATION } from '@cv-platform/plugin-inference-platform-common';

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const VALUE = new RegExp(`^(${DNS_LABEL})/(${DNS_LABEL})$`);

/** The platform an entity names in its annotation, if the value is well formed. */
export function platformOfEntity(
  entity: Entity,
): { namespace: string; name: string } | undefined {
  const value =
    entity.metadata.annotations?.[ENTITY_PLATFORM_ANNOTATION]?.trim();
  const match = value ? VALUE.exec(value) : null;
  if (!match) return undefined;
  return { namespace: match[1], name: match[3] };
}

/**
 * For EntitySwitch: true when the entity names a platform as
 * `cv.platform.tech/inference-platform: <namespace>/<name>`.
 *
 * @public
 */
export function isInferencePlatformAvailable(entity: Entity): boolean {
  return platformOfEntity(entity) !== undefined;
}
