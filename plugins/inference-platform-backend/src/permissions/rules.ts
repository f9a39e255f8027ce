import { z } from 'zod';
import {
  createConditionExports,
  createPermissionRule,
} from '@backstage/plugin-permission-node';
import { platformPermissionResourceRef } from '@cv-platform/plugin-inference-platform-node';

export { platformPermissionResourceRef };
export type { PlatformResource } from '@cv-platform/plugin-inference-platform-node';

/**
 * The owner-only rule: the user owns the platform (its owner annotation) or its linked catalog entity.
 *
 * @public
 */
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

const conditionExports = createConditionExports({
  resourceRef: platformPermissionResourceRef,
  rules: platformPermissionRules,
});

/**
 * Conditions for permission policies: `inferencePlatformConditions.isPlatformOwner({ claims })`.
 *
 * @public
 */
export const inferencePlatformConditions = conditionExports.conditions;

/**
 * A conditional decision of a permission policy for platform permissions.
 *
 * @public
 */
export const createInferencePlatformConditionalDecision = conditionExports.createConditionalDecision;
