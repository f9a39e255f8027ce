import { DiscoveryApi, FetchApi } from '@backstage/core-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  BackupRequested,
  CreateRestoreRequest,
  InferencePlatformV1beta1,
  InferencePlatformRestore,
  PatchPlatformRequest,
  PlatformDetail,
  RestoreList,
} from '@cv-platform/plugin-inference-platform-common';
import {
  FeedScope,
  InferencePlatformApi,
  PlatformFeedHandlers,
} from './InferencePlatformApi';
import { SharedPlatformFeed } from './SharedPlatformFeed';
import { streamPlatformEvents } from './streamPlatformEvents';

const PLUGIN_ID = 'inference-platform';

/**
 * How the live feed reconnects and when it counts as stale.
 *
 * @public
 */
export interface StreamTuning {
  /** Exponential reconnect delay with jitter. Default 1 s doubling to 30 s, ±20 %. */
  backoff?: { baseMs: number; maxMs: number; jitter: number };
  /** Failed attempts in a row after which the connection shows offline. */
  offlineAfterAttempts?: number;
  /** Silence (no event, no heartbeat) after which the stream is presumed dead. */
  staleAfterMs?: number;
  /** Source of jitter. Default Math.random. */
  random?: () => number;
}

/**
 * REST and SSE client of the inference-platform backend plugin.
 *
 * @public
 */
export class InferencePlatformClient implements InferencePlatformApi {
  private readonly discoveryApi: DiscoveryApi;
  private readonly fetchApi: FetchApi;
  private readonly streamTuning: StreamTuning;

  constructor(options: {
    discoveryApi: DiscoveryApi;
    fetchApi: FetchApi;
    stream?: StreamTuning;
  }) {
    this.discoveryApi = options.discoveryApi;
    this.fetchApi = options.fetchApi;
    this.streamTuning = options.stream ?? {};
  }

  async getPlatform(namespace: string, name: string): Promise<PlatformDetail> {
    return this.request<PlatformDetail>(
      'GET',
      this.platformPath(namespace, name),
    );
  }

  async patchPlatform(
    namespace: string,
    name: string,
    patch: PatchPlatformRequest,
  ): Promise<InferencePlatformV1beta1> {
    return this.request<InferencePlatformV1beta1>(
      'PATCH',
      this.platformPath(namespace, name),
      patch,
    );
  }

  async deletePlatform(namespace: string, name: string): Promise<void> {
    await this.request<void>('DELETE', this.platformPath(namespace, name));
  }

  async requestBackup(
    namespace: string,
    name: string,
  ): Promise<BackupRequested> {
    return this.request<BackupRequested>(
      'POST',
      `${this.platformPath(namespace, name)}/backups`,
      {},
    );
  }

  async listRestores(
    namespace: string,
    name: string,
  ): Promise<InferencePlatformRestore[]> {
    const list = await this.request<RestoreList>(
      'GET',
      `${this.platformPath(namespace, name)}/restores`,
    );
    return list.items;
  }

  async createRestore(
    namespace: string,
    name: string,
    request: CreateRestoreRequest,
  ): Promise<InferencePlatformRestore> {
    return this.request<InferencePlatformRestore>(
      'POST',
      `${this.platformPath(namespace, name)}/restores`,
      request,
    );
  }

  async getObject(
    namespace: string,
    name: string,
    kind: string,
    objectName: string,
  ): Promise<unknown> {
    return this.request<unknown>(
      'GET',
      `${this.platformPath(namespace, name)}/objects/${encodeURIComponent(
        kind,
      )}/${encodeURIComponent(objectName)}`,
    );
  }

  async getPodLog(
    namespace: string,
    name: string,
    pod: string,
    options: { container: string; previous?: boolean; tailLines?: number },
  ): Promise<string> {
    const query = new URLSearchParams({
      container: options.container,
      tailLines: String(options.tailLines ?? 500),
      ...(options.previous ? { previous: 'true' } : {}),
    });
    const baseUrl = await this.discoveryApi.getBaseUrl(PLUGIN_ID);
    const response = await this.fetchApi.fetch(
      `${baseUrl}${this.platformPath(
        namespace,
        name,
      )}/pods/${encodeURIComponent(pod)}/log?${query}`,
    );
    if (!response.ok) throw await ResponseError.fromResponse(response);
    return response.text();
  }

  private readonly feeds = new Map<string, SharedPlatformFeed>();

  async streamEvents(
    handlers: PlatformFeedHandlers,
    signal: AbortSignal,
    scope?: FeedScope,
  ): Promise<void> {
    let query = '';
    if (scope && 'platform' in scope)
      query = `?platform=${encodeURIComponent(scope.platform)}`;
    else if (scope) query = `?namespace=${encodeURIComponent(scope.namespace)}`;
    let feed = this.feeds.get(query);
    if (!feed) {
      const created = new SharedPlatformFeed(
        (h, s) => this.openStream(query, h, s),
        () => {
          if (this.feeds.get(query) === created && created.size === 0)
            this.feeds.delete(query);
        },
      );
      feed = created;
      this.feeds.set(query, feed);
    }
    return feed.subscribe(handlers, signal);
  }

  private async openStream(
    query: string,
    handlers: PlatformFeedHandlers,
    signal: AbortSignal,
  ): Promise<void> {
    let url: string;
    try {
      url = `${await this.discoveryApi.getBaseUrl(PLUGIN_ID)}/events${query}`;
    } catch (e) {
      handlers.onStatus({
        state: 'offline',
        attempt: 0,
        fatal: true,
        error: `Cannot locate the inference-platform backend: ${
          e instanceof Error ? e.message : e
        }`,
      });
      return;
    }
    await streamPlatformEvents({
      ...this.streamTuning,
      url,
      // Bound, because fetchApi.fetch relies on its `this`.
      fetch: (input, init) => this.fetchApi.fetch(input, init),
      handlers,
      signal,
    });
  }

  private platformPath(namespace: string, name: string) {
    return `/platforms/${encodeURIComponent(namespace)}/${encodeURIComponent(
      name,
    )}`;
  }

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<T> {
    const baseUrl = await this.discoveryApi.getBaseUrl(PLUGIN_ID);
    const response = await this.fetchApi.fetch(`${baseUrl}${path}`, {
      method,
      headers:
        body === undefined ? undefined : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) {
      throw await ResponseError.fromResponse(response);
    }
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}
