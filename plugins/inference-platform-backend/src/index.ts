/**
 * Backstage backend plugin for InferencePlatforms: embeds the operator,
 * serves the REST API and the live SSE feed.
 *
 * @packageDocumentation
 */
export { inferencePlatformPlugin as default } from './plugin';
// Kept here for existing imports; modules should import them from the -node package.
export { embeddedOperatorServiceRef, createEmbeddedOperator } from '@cv-platform/plugin-inference-platform-node';
export type { EmbeddedOperator } from '@cv-platform/plugin-inference-platform-node';
export {
  inferencePlatformConditions,
  createInferencePlatformConditionalDecision,
  platformPermissionResourceRef,
  isPlatformOwner,
} from './permissions/rules';
export type { PlatformResource } from './permissions/rules';
