/**
 * Live dashboard of InferencePlatforms for Backstage.
 *
 * @packageDocumentation
 */
export {
  inferencePlatformPlugin,
  InferencePlatformsPage,
  EntityInferencePlatformCard,
  EntityInferencePlatformContent,
} from './plugin';
export { isInferencePlatformAvailable } from './components/EntityInferencePlatform/platformAnnotation';
export { inferencePlatformApiRef, InferencePlatformClient } from './api';
export type { StreamTuning } from './api/InferencePlatformClient';
export type {
  InferencePlatformApi,
  ConnectionStatus,
  ConnectionState,
} from './api';
export type { FeedScope } from './api/InferencePlatformApi';
export type { PlatformFeedHandlers } from './api/InferencePlatformApi';
