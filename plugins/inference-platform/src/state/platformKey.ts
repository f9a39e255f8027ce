import {
  InferencePlatformV1beta1,
  PlatformRef,
  stringifyPlatformRef,
} from '@cv-platform/plugin-inference-platform-common';

/**
 * `[<cluster>/]<namespace>/<name>`: the same form as the entity annotation
 * and the permission resourceRef, so one string identifies a platform
 * everywhere. The cluster is the one the platform was addressed with (the
 * feed's): absent for the backend's default cluster when the page does not
 * name clusters (a single-cluster backend), so keys there stay
 * `<namespace>/<name>`.
 */
export type PlatformKey = string;

export function platformKey(
  platform: InferencePlatformV1beta1,
  cluster?: string,
): PlatformKey {
  return stringifyPlatformRef(platformRefOf(platform, cluster));
}

/** How to address `platform`, as seen on `cluster` (absent: the default cluster). */
export function platformRefOf(
  platform: InferencePlatformV1beta1,
  cluster?: string,
): PlatformRef {
  return {
    ...(cluster ? { cluster } : {}),
    namespace: platform.metadata.namespace ?? 'default',
    name: platform.metadata.name ?? '',
  };
}

export function refKey(ref: PlatformRef): PlatformKey {
  return stringifyPlatformRef(ref);
}

export function parsePlatformKey(key: PlatformKey): PlatformRef {
  const parts = key.split('/');
  if (parts.length >= 3) {
    return {
      cluster: parts[0],
      namespace: parts[1],
      name: parts.slice(2).join('/'),
    };
  }
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
