import { createPermission } from '@backstage/plugin-permission-common';

/** Resource type of permissions that concern one InferencePlatform. */
export const INFERENCE_PLATFORM_RESOURCE_TYPE = 'inference-platform';

/**
 * Reading is all or nothing (a basic permission): the list and the live feed
 * are served from one shared cache, and per-item read decisions would have to
 * be re-evaluated for every event.
 */
export const inferencePlatformReadPermission = createPermission({
  name: 'inference-platform.read',
  attributes: { action: 'read' },
});

export const inferencePlatformCreatePermission = createPermission({
  name: 'inference-platform.create',
  attributes: { action: 'create' },
});

export const inferencePlatformUpdatePermission = createPermission({
  name: 'inference-platform.update',
  attributes: { action: 'update' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

export const inferencePlatformDeletePermission = createPermission({
  name: 'inference-platform.delete',
  attributes: { action: 'delete' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

export const inferencePlatformPermissions = [
  inferencePlatformReadPermission,
  inferencePlatformCreatePermission,
  inferencePlatformUpdatePermission,
  inferencePlatformDeletePermission,
];
