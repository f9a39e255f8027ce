import { isResourcePermission } from '@backstage/plugin-permission-common';
import {
  inferencePlatformCreatePermission,
  inferencePlatformReadPermission,
  inferencePlatformPermissions,
  INFERENCE_PLATFORM_RESOURCE_TYPE,
} from './permissions';

describe('permissions', () => {
  it('names every permission inference-platform.<action>', () => {
    expect(inferencePlatformPermissions.map(p => p.name)).toEqual([
      'inference-platform.read',
      'inference-platform.create',
      'inference-platform.update',
      'inference-platform.delete',
    ]);
  });

  it('scopes update and delete to one platform', () => {
    for (const p of inferencePlatformPermissions) {
      expect(isResourcePermission(p, INFERENCE_PLATFORM_RESOURCE_TYPE)).toBe(
        p !== inferencePlatformCreatePermission && p !== inferencePlatformReadPermission,
      );
    }
  });
});
