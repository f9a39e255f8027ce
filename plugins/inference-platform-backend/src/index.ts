/**
 * Backstage backend plugin for InferencePlatforms: embeds the operator,
 * serves the REST API and the live SSE feed.
 *
 * @packageDocumentation
 */
export { inferencePlatformPlugin as default } from './plugin';
export { catalogModuleInferencePlatform } from './catalog/catalogModuleInferencePlatform';
export { embeddedOperatorServiceRef, createEmbeddedOperator } from './service/operatorServiceRef';
export type { EmbeddedOperator } from './service/operatorServiceRef';
export {
  inferencePlatformConditions,
  createInferencePlatformConditionalDecision,
  platformPermissionResourceRef,
  isPlatformOwner,
} from './permissions/rules';
export type { PlatformResource } from './permissions/rules';
export { inferencePlatformModuleOperatorMetrics } from './metrics/operatorMetricsModule';
