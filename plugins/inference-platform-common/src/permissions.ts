import { createPermission } from '@backstage/plugin-permission-common';

/** Resource type of permissions that concern one InferencePlatform. */
export const INFERENCE_PLATFORM_RESOURCE_TYPE = 'inference-platform';

export const inferencePlatformReadPermission = createPermission({
  name: 'inference-platform.read',
  attributes: { action: 'read' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
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
