import { z } from 'zod';
import {
  createConditionExports,
  createPermissionResourceRef,
  createPermissionRule,
} from '@backstage/plugin-permission-node';
import {
  InferencePlatform,
  INFERENCE_PLATFORM_RESOURCE_TYPE,
} from '@cv-platform/plugin-inference-platform-common';

/** What permission rules see of a platform: the CR and who owns it. */
export interface PlatformResource {
  platform: InferencePlatform;
  /** Entity refs of its owners: the owner annotation and the linked catalog entity's owner. */
  owners: string[];
}

export const platformPermissionResourceRef = createPermissionResourceRef<
  PlatformResource,
  { owners: string[] }
>().with({ pluginId: 'inference-platform', resourceType: INFERENCE_PLATFORM_RESOURCE_TYPE });

export const isPlatformOwner = createPermissionRule({
  name: 'IS_PLATFORM_OWNER',
  description: 'Allow only owners of the platform (or of its linked catalog entity)',
  resourceRef: platformPermissionResourceRef,
  paramsSchema: z.object({
    claims: z
      .array(z.string())
      .describe('Ownership entity refs of the user, e.g. from identity.ownershipEntityRefs'),
  }),
  apply: (resource, { claims }) => resource.owners.some(o => claims.includes(o)),
  toQuery: ({ claims }) => ({ owners: claims }),
});

export const platformPermissionRules = { isPlatformOwner };

/** For permission policies: `inferencePlatformConditions.isPlatformOwner({ claims })`. */
export const {
  conditions: inferencePlatformConditions,
  createConditionalDecision: createInferencePlatformConditionalDecision,
} = createConditionExports({
  resourceRef: platformPermissionResourceRef,
  rules: platformPermissionRules,
});
