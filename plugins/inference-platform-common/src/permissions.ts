import { createPermission } from '@backstage/plugin-permission-common';

/**
 * Resource type of permissions that concern one InferencePlatform.
 *
 * @public
 */
export const INFERENCE_PLATFORM_RESOURCE_TYPE = 'inference-platform';

/**
 * Reading is all or nothing (a basic permission): the list and the live feed
 * are served from one shared cache, and per-item read decisions would have to
 * be re-evaluated for every event.
 *
 * @public
 */
export const inferencePlatformReadPermission = createPermission({
  name: 'inference-platform.read',
  attributes: { action: 'read' },
});

/** @public */
export const inferencePlatformCreatePermission = createPermission({
  name: 'inference-platform.create',
  attributes: { action: 'create' },
});

/** @public */
export const inferencePlatformUpdatePermission = createPermission({
  name: 'inference-platform.update',
  attributes: { action: 'update' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

/** @public */
export const inferencePlatformDeletePermission = createPermission({
  name: 'inference-platform.delete',
  attributes: { action: 'delete' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

/**
 * "Back up now": asks the operator for a backup of the platform's Qdrant
 * outside its schedule. Creates a backup and changes no data.
 *
 * @public
 */
export const inferencePlatformBackupCreatePermission = createPermission({
  name: 'inference-platform.backup.create',
  attributes: { action: 'create' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

/**
 * Creates an InferencePlatformRestore for the platform. Granted apart from
 * update: a restore overwrites the platform's Qdrant collections with a
 * backup's data. Its action is `update` so that a policy treating writes
 * alike (e.g. owner-only updates) covers it as well.
 *
 * @public
 */
export const inferencePlatformRestoreCreatePermission = createPermission({
  name: 'inference-platform.restore.create',
  attributes: { action: 'update' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

/**
 * Reads the logs of the platform's pods (containers and init containers)
 * through the Kubernetes API. Apart from read: logs may carry what the
 * platform's status does not (request data, credentials a program prints).
 *
 * @public
 */
export const inferencePlatformLogsReadPermission = createPermission({
  name: 'inference-platform.logs.read',
  attributes: { action: 'read' },
  resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE,
});

/** @public */
export const inferencePlatformPermissions = [
  inferencePlatformReadPermission,
  inferencePlatformCreatePermission,
  inferencePlatformUpdatePermission,
  inferencePlatformDeletePermission,
  inferencePlatformBackupCreatePermission,
  inferencePlatformRestoreCreatePermission,
  inferencePlatformLogsReadPermission,
];
