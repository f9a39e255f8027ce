/**
 * Catalog entity name of the Resource that mirrors a platform.
 *
 * @public
 */
export function platformEntityName(namespace: string, name: string): string {
  return `${namespace}.${name}`;
}

/**
 * Full catalog entity ref of the Resource that mirrors a platform.
 *
 * @public
 */
export function platformEntityRef(namespace: string, name: string): string {
  return `resource:default/${platformEntityName(namespace, name)}`;
}

/**
 * Catalog Resource type of platform entities.
 *
 * @public
 */
export const PLATFORM_ENTITY_TYPE = 'inference-platform';

/**
 * Path of a platform's page in the portal app.
 *
 * @public
 */
export function platformPagePath(namespace: string, name: string): string {
  return `/inference-platforms/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/**
 * Annotation on catalog entities (Components, Systems) naming the platform
 * they use, as `<namespace>/<name>`; the entity page shows that platform.
 *
 * @public
 */
export const ENTITY_PLATFORM_ANNOTATION = 'cv.platform.tech/inference-platform';
