/**
 * Scaffolder actions that create InferencePlatforms, and the software
 * template that uses them (templates/inference-platform).
 *
 * @packageDocumentation
 */
export { scaffolderModuleInferencePlatform as default } from './module';
export {
  createInferencePlatformAction,
  CREATE_ACTION_ID,
} from './actions/createInferencePlatformAction';
export type { CreateInferencePlatformActionOptions } from './actions/createInferencePlatformAction';
export {
  createRefreshPlatformEntityAction,
  REFRESH_ENTITY_ACTION_ID,
} from './actions/createRefreshPlatformEntityAction';
export type { RefreshPlatformEntityActionOptions } from './actions/createRefreshPlatformEntityAction';
export {
  buildPlatform,
  SCAFFOLDER_TASK_ANNOTATION,
} from './actions/buildPlatform';
export type { PlatformParameters, Quantity } from './actions/buildPlatform';
