import { isResourcePermission } from '@backstage/plugin-permission-common';
import {
  inferencePlatformBackupCreatePermission,
  inferencePlatformCreatePermission,
  inferencePlatformLogsReadPermission,
  inferencePlatformReadPermission,
  inferencePlatformPermissions,
  inferencePlatformRestoreCreatePermission,
  INFERENCE_PLATFORM_RESOURCE_TYPE,
} from './permissions';

describe('permissions', () => {
  it('names every permission inference-platform.<action> or inference-platform.<thing>.<action>', () => {
    expect(inferencePlatformPermissions.map(p => p.name)).toEqual([
      'inference-platform.read',
      'inference-platform.create',
      'inference-platform.update',
      'inference-platform.delete',
      'inference-platform.backup.create',
      'inference-platform.restore.create',
      'inference-platform.logs.read',
    ]);
  });

  it('scopes every permission but read and create to one platform', () => {
    for (const p of inferencePlatformPermissions) {
      expect(isResourcePermission(p, INFERENCE_PLATFORM_RESOURCE_TYPE)).toBe(
        p !== inferencePlatformCreatePermission && p !== inferencePlatformReadPermission,
      );
    }
  });

  it('treats a backup as creating something, a restore as changing the platform, and logs as reading', () => {
    expect(inferencePlatformBackupCreatePermission.attributes.action).toBe('create');
    expect(inferencePlatformRestoreCreatePermission.attributes.action).toBe('update');
    expect(inferencePlatformLogsReadPermission.attributes.action).toBe('read');
  });
});
