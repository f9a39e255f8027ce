import { createPermissionResourceRef } from '@backstage/plugin-permission-node';
import {
  InferencePlatform,
  INFERENCE_PLATFORM_RESOURCE_TYPE,
} from '@cv-platform/plugin-inference-platform-common';

/**
 * What permission rules see of a platform: the CR and who owns it.
 *
 * @public
 */
export interface PlatformResource {
  /** The cluster it runs in (a name of `inferencePlatform.clusters`, `default` with one cluster). */
  cluster: string;
  platform: InferencePlatform;
  /** Entity refs of its owners: the owner annotation and the linked catalog entity's owner. */
  owners: string[];
}

/**
 * The resource of the plugin's resource permissions, for policies and for
 * modules that add permission rules.
 *
 * @public
 */
export const platformPermissionResourceRef = createPermissionResourceRef<
  PlatformResource,
  { owners: string[] }
>().with({ pluginId: 'inference-platform', resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE });
