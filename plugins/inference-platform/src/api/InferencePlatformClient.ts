import { DiscoveryApi, FetchApi } from '@backstage/core-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  BackupRequested,
  ClusterInfo,
  ClusterList,
  CreateRestoreRequest,
  InferencePlatformV1beta1,
  InferencePlatformRestore,
  PatchPlatformRequest,
  PlatformDetail,
  PlatformRef,
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

  async listClusters(): Promise<ClusterInfo[]> {
    const list = await this.request<ClusterList>('GET', '/clusters');
    return list.items;
  }

  async getPlatform(ref: PlatformRef): Promise<PlatformDetail> {
    return this.request<PlatformDetail>('GET', this.platformPath(ref));
  }

  async patchPlatform(
    ref: PlatformRef,
    patch: PatchPlatformRequest,
  ): Promise<InferencePlatformV1beta1> {
    return this.request<InferencePlatformV1beta1>(
      'PATCH',
      this.platformPath(ref),
      patch,
    );
  }

  async deletePlatform(ref: PlatformRef): Promise<void> {
    await this.request<void>('DELETE', this.platformPath(ref));
  }

  async requestBackup(ref: PlatformRef): Promise<BackupRequested> {
    return this.request<BackupRequested>(
      'POST',
      this.platformPath(ref, '/backups'),
      {},
    );
  }

  async listRestores(ref: PlatformRef): Promise<InferencePlatformRestore[]> {
    const list = await this.request<RestoreList>(
      'GET',
      this.platformPath(ref, '/restores'),
    );
    return list.items;
  }

  async createRestore(
    ref: PlatformRef,
    request: CreateRestoreRequest,
  ): Promise<InferencePlatformRestore> {
    return this.request<InferencePlatformRestore>(
      'POST',
      this.platformPath(ref, '/restores'),
      request,
    );
  }

  async getObject(
    ref: PlatformRef,
    kind: string,
    objectName: string,
  ): Promise<unknown> {
    return this.request<unknown>(
      'GET',
      this.platformPath(
        ref,
        `/objects/${encodeURIComponent(kind)}/${encodeURIComponent(
          objectName,
        )}`,
      ),
    );
  }

  async getPodLog(
    ref: PlatformRef,
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
        ref,
        `/pods/${encodeURIComponent(pod)}/log`,
        query,
      )}`,
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
    const params = new URLSearchParams();
    if (scope?.cluster) params.set('cluster', scope.cluster);
    if (scope?.platform) params.set('platform', scope.platform);
    else if (scope?.namespace) params.set('namespace', scope.namespace);
    // One shared stream per distinct query, so per cluster and scope.
    const search = params.toString();
    const query = search ? `?${search}` : '';
    let feed = this.feeds.get(query);
    if (!feed) {
      const created = new SharedPlatformFeed(
        (h, s) => this.openStream(query, scope?.cluster, h, s),
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
    cluster: string | undefined,
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
      cluster,
      // Bound, because fetchApi.fetch relies on its `this`.
      fetch: (input, init) => this.fetchApi.fetch(input, init),
      handlers,
      signal,
    });
  }

  /**
   * `/platforms/:namespace/:name[suffix]`, with `?cluster=` only when the
   * ref names a cluster: a single-cluster backend sees the requests it
   * always did.
   */
  private platformPath(
    ref: PlatformRef,
    suffix = '',
    query?: URLSearchParams,
  ): string {
    const params = new URLSearchParams();
    if (ref.cluster) params.set('cluster', ref.cluster);
    query?.forEach((value, key) => params.set(key, value));
    const search = params.toString();
    return `/platforms/${encodeURIComponent(
      ref.namespace,
    )}/${encodeURIComponent(ref.name)}${suffix}${search ? `?${search}` : ''}`;
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
