import { createApiRef } from '@backstage/core-plugin-api';
import {
  InferencePlatform,
  PatchPlatformRequest,
  PlatformChangeEvent,
  PlatformDetail,
} from '@cv-platform/plugin-inference-platform-common';
import { ConnectionStatus } from './ConnectionStatus';

/** Callbacks of one subscription to the backend's SSE feed. */
export interface PlatformFeedHandlers {
  /** The full list; replaces whatever the subscriber held. */
  onSnapshot(items: InferencePlatform[]): void;
  onChange(event: PlatformChangeEvent): void;
  onStatus(status: ConnectionStatus): void;
}

/** Client of the inference-platform backend plugin. */
export interface InferencePlatformApi {
  getPlatform(namespace: string, name: string): Promise<PlatformDetail>;
  patchPlatform(
    namespace: string,
    name: string,
    patch: PatchPlatformRequest,
  ): Promise<InferencePlatform>;
  deletePlatform(namespace: string, name: string): Promise<void>;
  /**
   * Follows GET /events until `signal` aborts, reconnecting on its own.
   * Resolves on abort; never rejects (fatal errors end as status `offline`).
   */
  streamEvents(
    handlers: PlatformFeedHandlers,
    signal: AbortSignal,
  ): Promise<void>;
}

/** @public */
export const inferencePlatformApiRef = createApiRef<InferencePlatformApi>({
  id: 'plugin.inference-platform.service',
});
