import { createApiRef } from '@backstage/core-plugin-api';
import {
  BackupRequested,
  ClusterInfo,
  CreateRestoreRequest,
  InferencePlatformV1beta1,
  InferencePlatformRestore,
  PatchPlatformRequest,
  PlatformChangeEvent,
  PlatformDetail,
  PlatformRef,
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
 * What a feed follows: one platform (`<namespace>/<name>`), one namespace's,
 * or (neither) all, of one cluster: `cluster`, or without it the backend's
 * default cluster. `platform` wins over `namespace`.
 *
 * @public
 */
export interface FeedScope {
  /** Absent: the backend's default cluster (no `cluster` parameter is sent). */
  cluster?: string;
  /** `<namespace>/<name>` */
  platform?: string;
  namespace?: string;
}

/**
 * Client of the inference-platform backend plugin.
 *
 * Every per-platform method takes a `PlatformRef` (common package):
 * with a `cluster` it sends `?cluster=<name>`, without one it sends nothing
 * and the backend means its default cluster.
 *
 * @public
 */
export interface InferencePlatformApi {
  /** The clusters the backend manages, in configuration order (the first is the default). */
  listClusters(): Promise<ClusterInfo[]>;
  getPlatform(ref: PlatformRef): Promise<PlatformDetail>;
  patchPlatform(
    ref: PlatformRef,
    patch: PatchPlatformRequest,
  ): Promise<InferencePlatformV1beta1>;
  deletePlatform(ref: PlatformRef): Promise<void>;
  /** "Back up now": the operator takes one backup outside the schedule. */
  requestBackup(ref: PlatformRef): Promise<BackupRequested>;
  /** The platform's InferencePlatformRestores, newest first. */
  listRestores(ref: PlatformRef): Promise<InferencePlatformRestore[]>;
  /** Restores the platform's Qdrant from one of its successful backups. */
  createRestore(
    ref: PlatformRef,
    request: CreateRestoreRequest,
  ): Promise<InferencePlatformRestore>;
  /** One of the platform's objects (itself or a child) as the API server has it now. */
  getObject(
    ref: PlatformRef,
    kind: string,
    objectName: string,
  ): Promise<unknown>;
  /** The last lines of one container's log (or of its previous run) in one of the platform's pods. */
  getPodLog(
    ref: PlatformRef,
    pod: string,
    options: { container: string; previous?: boolean; tailLines?: number },
  ): Promise<string>;
  /**
   * Follows GET /events (one cluster per stream) until `signal` aborts,
   * reconnecting on its own. Subscribers to the same scope (cluster
   * included) share one stream (opened by the first, closed after the last;
   * a late one gets what it holds at once). Resolves on abort; never rejects
   * (fatal errors end as status `offline`).
   */
  streamEvents(
    handlers: PlatformFeedHandlers,
    signal: AbortSignal,
    /** Only this platform or namespace, of this cluster; default all of the default cluster. */
    scope?: FeedScope,
  ): Promise<void>;
}

/** @public */
export const inferencePlatformApiRef = createApiRef<InferencePlatformApi>({
  id: 'plugin.inference-platform.service',
});
