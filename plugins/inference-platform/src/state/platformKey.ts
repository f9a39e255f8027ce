import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';

/**
 * `<namespace>/<name>`: the same form as the entity annotation and the
 * permission resourceRef, so one string identifies a platform everywhere.
 */
export type PlatformKey = string;

export function platformKey(platform: InferencePlatformV1beta1): PlatformKey {
  return `${platform.metadata.namespace ?? 'default'}/${
    platform.metadata.name
  }`;
}

export function parsePlatformKey(key: PlatformKey): {
  namespace: string;
  name: string;
} {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
