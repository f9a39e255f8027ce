import { z } from 'zod';
import {
  createConditionExports,
  createPermissionRule,
} from '@backstage/plugin-permission-node';
import { platformPermissionResourceRef } from '@cv-platform/plugin-inference-platform-node';

export { platformPermissionResourceRef };
export type { PlatformResource } from '@cv-platform/plugin-inference-platform-node';

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
