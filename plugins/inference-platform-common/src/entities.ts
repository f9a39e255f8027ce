/**
 * Catalog entity name of the Resource that mirrors a platform:
 * `<namespace>.<name>`, or `<cluster>.<namespace>.<name>` when the portal
 * manages more than one cluster (give `cluster` then, for every cluster).
 *
 * @public
 */
export function platformEntityName(
  namespace: string,
  name: string,
  cluster?: string,
): string {
  return cluster ? `${cluster}.${namespace}.${name}` : `${namespace}.${name}`;
}

/**
 * Full catalog entity ref of the Resource that mirrors a platform.
 *
 * @public
 */
export function platformEntityRef(
  namespace: string,
  name: string,
  cluster?: string,
): string {
  return `resource:default/${platformEntityName(namespace, name, cluster)}`;
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
export function platformPagePath(
  namespace: string,
  name: string,
  cluster?: string,
): string {
  return `/inference-platforms/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}${
    cluster ? `?cluster=${encodeURIComponent(cluster)}` : ''
  }`;
}

/**
 * Annotation on catalog entities (Components, Systems) naming the platform
 * they use, as `<namespace>/<name>` (on the default cluster) or
 * `<cluster>/<namespace>/<name>`; the entity page shows that platform.
 *
 * @public
 */
export const ENTITY_PLATFORM_ANNOTATION = 'cv.platform.tech/inference-platform';

/**
 * Annotation on platform Resources naming the cluster the platform runs in
 * (a name of the backend's `inferencePlatform.clusters`).
 *
 * @public
 */
export const ENTITY_CLUSTER_ANNOTATION = 'cv.platform.tech/cluster';

/**
 * A platform as an {@link ENTITY_PLATFORM_ANNOTATION} names it.
 *
 * @public
 */
export interface PlatformRef {
  /** Absent: the backend's default (first) cluster. */
  cluster?: string;
  namespace: string;
  name: string;
}

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const PLATFORM_REF = new RegExp(
  `^(?:(${DNS_LABEL})/)?(${DNS_LABEL})/(${DNS_LABEL})$`,
);

/**
 * Cluster names are DNS labels: they appear in entity names, URLs and
 * `[<cluster>/]<namespace>/<name>` references.
 *
 * @public
 */
export const CLUSTER_NAME_PATTERN = new RegExp(`^${DNS_LABEL}$`);

/**
 * Parses `[<cluster>/]<namespace>/<name>`; undefined when malformed.
 *
 * @public
 */
export function parsePlatformRef(value: string | undefined): PlatformRef | undefined {
  const match = value ? PLATFORM_REF.exec(value.trim()) : null;
  if (!match) return undefined;
  return {
    ...(match[1] ? { cluster: match[1] } : {}),
    namespace: match[3],
    name: match[5],
  };
}

/**
 * `<namespace>/<name>`, or `<cluster>/<namespace>/<name>` with a cluster.
 *
 * @public
 */
export function stringifyPlatformRef(ref: PlatformRef): string {
  return `${ref.cluster ? `${ref.cluster}/` : ''}${ref.namespace}/${ref.name}`;
}
