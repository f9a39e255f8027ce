export { inferencePlatformApiRef } from './InferencePlatformApi';
export type {
  FeedScope,
  InferencePlatformApi,
  PlatformFeedHandlers,
} from './InferencePlatformApi';
export { InferencePlatformClient } from './InferencePlatformClient';
export type { ConnectionState, ConnectionStatus } from './ConnectionStatus';
export { initialConnectionStatus } from './ConnectionStatus';
export { describeError } from './describeError';
