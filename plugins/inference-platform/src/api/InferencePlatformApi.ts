import { createApiRef } from '@backstage/core-plugin-api';
import {
  BackupRequested,
  CreateRestoreRequest,
  InferencePlatformV1beta1,
  InferencePlatformRestore,
  PatchPlatformRequest,
  PlatformChangeEvent,
  PlatformDetail,
} from '@cv-platform/plugin-inference-platform-common';
import { ConnectionStatus } from './ConnectionStatus';

/**
 * Callbacks of one subscription to the backend's SSE feed.
 *
 * @public
 */
export interface PlatformFeedHandlers {
  /** The full list; replaces whatever the subscriber held. */
  onSnapshot(items: InferencePlatformV1beta1[]): void;
  onChange(event: PlatformChangeEvent): void;
  onStatus(status: ConnectionStatus): void;
}

/**
 * What a feed follows: one platform, one namespace's, or (neither) all.
 *
 * @public
 */
export type FeedScope = { platform: string } | { namespace: string };

/**
 * Client of the inference-platform backend plugin.
 *
 * @public
 */
export interface InferencePlatformApi {
  getPlatform(namespace: string, name: string): Promise<PlatformDetail>;
  patchPlatform(
    namespace: string,
    name: string,
    patch: PatchPlatformRequest,
  ): Promise<InferencePlatformV1beta1>;
  deletePlatform(namespace: string, name: string): Promise<void>;
  /** "Back up now": the operator takes one backup outside the schedule. */
  requestBackup(namespace: string, name: string): Promise<BackupRequested>;
  /** The platform's InferencePlatformRestores, newest first. */
  listRestores(
    namespace: string,
    name: string,
  ): Promise<InferencePlatformRestore[]>;
  /** Restores the platform's Qdrant from one of its successful backups. */
  createRestore(
    namespace: string,
    name: string,
    request: CreateRestoreRequest,
  ): Promise<InferencePlatformRestore>;
  /** One of the platform's objects (itself or a child) as the API server has it now. */
  getObject(
    namespace: string,
    name: string,
    kind: string,
    objectName: string,
  ): Promise<unknown>;
  /** The last lines of one container's log (or of its previous run) in one of the platform's pods. */
  getPodLog(
    namespace: string,
    name: string,
    pod: string,
    options: { container: string; previous?: boolean; tailLines?: number },
  ): Promise<string>;
  /**
   * Follows GET /events until `signal` aborts, reconnecting on its own.
   * Subscribers to the same scope share one stream (opened by the first,
   * closed after the last; a late one gets what it holds at once). Resolves
   * on abort; never rejects (fatal errors end as status `offline`).
   */
  streamEvents(
    handlers: PlatformFeedHandlers,
    signal: AbortSignal,
    /** Only this platform (`<namespace>/<name>`) or namespace; default all. */
    scope?: FeedScope,
  ): Promise<void>;
}

/** @public */
export const inferencePlatformApiRef = createApiRef<InferencePlatformApi>({
  id: 'plugin.inference-platform.service',
});
