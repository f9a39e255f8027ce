import https from 'node:https';
import http from 'node:http';
import tls from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';

/** @public */
export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: any,
    readonly method: string,
    readonly path: string,
  ) {
    super(
      `${method} ${path}: ${statusCode} ${
        typeof body === 'object' && body?.message ? body.message : String(body).slice(0, 300)
      }`,
    );
  }

  get reason(): string | undefined {
    return typeof this.body === 'object' ? this.body?.reason : undefined;
  }
}

/**
 * A watch stream carried something that is not a watch event: a genuine error, not a dropped connection.
 *
 * @public
 */
export class WatchDecodeError extends Error {}

/** @public */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: any;
}

/** @public */
export interface ResourceRef {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** @public */
export function resourcePath(
  ref: Pick<ResourceRef, 'apiVersion' | 'plural'>,
  namespace?: string,
  name?: string,
  subresource?: string,
) {
  const base = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  return `${base}${namespace ? `/namespaces/${namespace}` : ''}/${ref.plural}${
    name ? `/${encodeURIComponent(name)}` : ''
  }${subresource ? `/${subresource}` : ''}`;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** @public */
export interface KubeClientOptions {
  /**
   * How often credentials are re-read from the kubeconfig (exec plugins,
   * OIDC and projected service-account tokens rotate). Default 60 s.
   */
  credentialRefreshMs?: number;
  /** Mints the bearer token instead of the kubeconfig's user (see {@link KubeCredentialsProvider}). */
  credentials?: KubeCredentialsProvider;
}

/**
 * Mints the bearer token for a cluster, for identities the kubeconfig cannot
 * express: a cloud's workload identity (EKS, GKE, AKS), a token broker. Asked
 * before the first request, at every credential refresh and once more when
 * the API server answers 401; its token replaces the kubeconfig user's.
 *
 * @public
 */
export interface KubeCredentialsProvider {
  getCredentials(cluster: { name: string; url: string }): Promise<{ token: string }>;
}

interface Transport {
  at: number;
  opts: https.RequestOptions;
  /** The TLS material the agent was made with; a refresh reuses an agent with the same. */
  tlsKey: string;
  agent: http.Agent;
}

function material(v: unknown): string {
  if (v === undefined) return '';
  return Buffer.isBuffer(v) ? v.toString('base64') : String(v);
}

/**
 * Retires an agent whose credentials were replaced: its idle sockets close
 * now, and each busy one (a watch, a request in flight) closes when its
 * stream ends instead of going back to the pool. Destroying it instead would
 * kill every long-running watch opened before the refresh.
 */
function retire(agent: http.Agent) {
  (agent as unknown as { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) sockets?.forEach(s => s.destroy());
}

const busySockets = (agent: http.Agent) =>
  Object.values(agent.sockets).reduce((n, list) => n + (list?.length ?? 0), 0);

/**
 * A small JSON client over the KubeConfig's transport (certs, tokens, CA).
 * Objects stay plain JSON, exactly as the API server sends them, so the
 * operator compares and caches them without model-class conversions; writes
 * are counted, which is how tests prove that a steady state issues none.
 *
 * @public
 */
export class KubeClient {
  writes = 0;
  requests = 0;
  /** Times the TLS material changed and a new connection pool replaced the old one. */
  agentRotations = 0;
  private readonly server: string;
  private readonly refreshMs: number;
  private current?: Transport;
  private resolving?: Promise<Transport>;
  private readonly retired = new Set<http.Agent>();
  private credentials?: KubeCredentialsProvider;
  private readonly clusterName: string;

  constructor(
    readonly kubeConfig: KubeConfig,
    /** Called for every request, e.g. to count it in metrics. */
    private readonly onRequest?: (method: string) => void,
    options: KubeClientOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/$/, '');
    this.clusterName = cluster.name;
    this.refreshMs = options.credentialRefreshMs ?? 60_000;
    this.credentials = options.credentials;
  }

  /** Mints tokens with `provider` from the next credential refresh on (now, before the first request). */
  setCredentialsProvider(provider: KubeCredentialsProvider): void {
    this.credentials = provider;
    if (this.current) this.current.at = 0;
  }

  /**
   * Credentials and TLS settings from the kubeconfig, re-read every
   * `credentialRefreshMs` rather than per request, over a keep-alive agent:
   * resolving per request cost a new TLS session each time. A new token only
   * changes headers; the agent (and every watch on it) is replaced only when
   * the TLS material itself changes, and then the old one is retired, not
   * destroyed.
   */
  private async transport(): Promise<https.RequestOptions> {
    const now = Date.now();
    if (this.current && now - this.current.at < this.refreshMs) return this.current.opts;
    this.resolving ??= this.resolve().finally(() => (this.resolving = undefined));
    return (await this.resolving).opts;
  }

  private async resolve(): Promise<Transport> {
    const opts: https.RequestOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts);
    if (this.credentials) {
      const { token } = await this.credentials.getCredentials({ name: this.clusterName, url: this.server });
      (opts.headers as Record<string, string>).Authorization = `Bearer ${token}`;
    }
    const tlsKey = [opts.ca, opts.cert, opts.key, opts.rejectUnauthorized, opts.servername].map(material).join('|');
    let agent = this.current?.agent;
    if (!agent || this.current?.tlsKey !== tlsKey) {
      // One secure context for the pool: built per connection, parsing the
      // CA and client key cost each new socket a millisecond or two.
      agent = this.server.startsWith('https:')
        ? new https.Agent({
            keepAlive: true,
            maxSockets: Infinity,
            secureContext: tls.createSecureContext({ ca: opts.ca, cert: opts.cert, key: opts.key }),
            rejectUnauthorized: opts.rejectUnauthorized,
            servername: opts.servername,
          })
        : new http.Agent({ keepAlive: true, maxSockets: Infinity });
      if (this.current) {
        this.agentRotations++;
        retire(this.current.agent);
        this.retired.add(this.current.agent);
      }
      for (const old of this.retired) if (!busySockets(old)) this.retired.delete(old);
    }
    opts.agent = agent;
    this.current = { at: Date.now(), opts, tlsKey, agent };
    return this.current;
  }

  private async options(method: string, path: string, headers: Record<string, string>) {
    const url = new URL(this.server + path);
    const t = await this.transport();
    const opts: https.RequestOptions = {
      ...t,
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: { ...(t.headers as Record<string, string>), Accept: 'application/json', ...headers },
    };
    return { opts, mod: url.protocol === 'https:' ? https : http };
  }

  /**
   * An answer other than 2xx. A 401 means the credentials expired before
   * their refresh: the next request (a watch's resumption too) reads or
   * mints new ones instead of waiting out credentialRefreshMs.
   */
  private apiError(status: number, body: unknown, method: string, path: string): KubeApiError {
    if (status === 401 && this.current) this.current.at = 0;
    return new KubeApiError(status, body, method, path);
  }

  /** Closes pooled connections (idle keep-alive sockets would hold the process open). */
  close() {
    this.current?.agent.destroy();
    this.current = undefined;
    for (const old of this.retired) old.destroy();
    this.retired.clear();
  }

  /**
   * One API request. A 429 (the API server's max-in-flight limit, or a CRD's
   * storage re-initializing after a change) is retried after the server's
   * Retry-After, up to 5 times, as client-go does: the request was not
   * processed, so any method may be sent again.
   */
  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
    signal?: AbortSignal,
    extraHeaders: Record<string, string> = {},
    idleTimeoutMs = 30_000,
  ): Promise<T> {
    let reauthenticated = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce<T>(method, path, body, contentType, signal, extraHeaders, idleTimeoutMs);
      } catch (e) {
        // A token that expired before its refresh: the next try mints or reads a new one.
        if (e instanceof KubeApiError && e.statusCode === 401 && !reauthenticated && !signal?.aborted) {
          reauthenticated = true;
          continue;
        }
        if (!(e instanceof KubeApiError) || e.statusCode !== 429 || attempt >= 5 || signal?.aborted) throw e;
        const seconds = Number(e.body?.details?.retryAfterSeconds ?? 1);
        await new Promise(resolve => setTimeout(resolve, Math.min(Math.max(seconds, 0.1), 10) * 1000));
      }
    }
  }

  private async requestOnce<T>(
    method: string,
    path: string,
    body: unknown,
    contentType: string,
    signal: AbortSignal | undefined,
    extraHeaders: Record<string, string>,
    idleTimeoutMs: number,
  ): Promise<T> {
    this.requests++;
    if (WRITE_METHODS.has(method)) this.writes++;
    this.onRequest?.(method);
    let payload: string | undefined;
    if (body !== undefined) payload = typeof body === 'string' ? body : JSON.stringify(body);
    const { opts, mod } = await this.options(
      method,
      path,
      payload !== undefined
        ? { ...extraHeaders, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(payload)) }
        : extraHeaders,
    );
    return new Promise<T>((resolve, reject) => {
      const req = mod.request({ ...opts, signal, timeout: idleTimeoutMs }, res => {
        const chunks: Buffer[] = [];
        res.on('data', c => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // plain-text error bodies
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(parsed as T);
          else reject(this.apiError(status, parsed, method, path));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /**
   * A GET whose body is streamed, not parsed (a file through a pod's proxy);
   * an answer other than 2xx rejects with KubeApiError.
   */
  async download(path: string, signal?: AbortSignal, headers: Record<string, string> = {}, idleTimeoutMs = 60_000): Promise<import('node:stream').Readable> {
    this.requests++;
    this.onRequest?.('GET');
    const { opts, mod } = await this.options('GET', path, { ...headers, Accept: '*/*' });
    return new Promise((resolve, reject) => {
      const req = mod.request({ ...opts, signal, timeout: idleTimeoutMs }, res => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          resolve(res);
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', c => chunks.push(c));
        res.on('end', () => reject(this.apiError(status, Buffer.concat(chunks).toString('utf8'), 'GET', path)));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path}: timeout`)));
      req.on('error', reject);
      req.end();
    });
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }

  /** Server-side apply: the field manager owns exactly the fields it sends. */
  apply<T = any>(path: string, obj: unknown, fieldManager: string, dryRun = false) {
    const q = `?fieldManager=${encodeURIComponent(fieldManager)}&force=true${dryRun ? '&dryRun=All' : ''}`;
    return this.request<T>('PATCH', path + q, obj, 'application/apply-patch+yaml');
  }

  mergePatch<T = any>(path: string, patch: unknown) {
    return this.request<T>('PATCH', path, patch, 'application/merge-patch+json');
  }

  delete<T = any>(path: string, propagationPolicy = 'Background', preconditions?: { uid?: string; resourceVersion?: string }) {
    return this.request<T>('DELETE', path, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy,
      ...(preconditions ? { preconditions } : {}),
    });
  }

  /**
   * Streams a watch until the server closes it, the signal aborts, or an error
   * occurs. Resolves on a clean close; rejects with KubeApiError (410 Gone
   * included), WatchDecodeError, or a transport error. A stream silent for
   * `idleTimeoutMs` is presumed dead (a half-open connection never ends on
   * its own) and rejects as a transport error.
   */
  async watch(
    path: string,
    params: Record<string, string>,
    onEvent: (e: WatchEvent) => void,
    signal: AbortSignal,
    idleTimeoutMs?: number,
  ): Promise<void> {
    this.requests++;
    this.onRequest?.('WATCH');
    const qs = new URLSearchParams({ ...params, watch: 'true', allowWatchBookmarks: 'true' });
    const { opts, mod } = await this.options('GET', `${path}?${qs}`, {});
    await new Promise<void>((resolve, reject) => {
      const req = mod.request({ ...opts, signal, timeout: idleTimeoutMs }, res => {
        if ((res.statusCode ?? 0) >= 300) {
          let text = '';
          res.on('data', c => (text += c));
          res.on('end', () => {
            let body: any = text;
            try {
              body = JSON.parse(text);
            } catch {
              // keep text
            }
            reject(this.apiError(res.statusCode ?? 0, body, 'WATCH', path));
          });
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (!line) continue;
            let event: WatchEvent;
            try {
              event = JSON.parse(line);
            } catch (e) {
              const err = new WatchDecodeError(`${path}: undecodable watch event: ${(e as Error).message}`);
              req.destroy(err);
              reject(err);
              return;
            }
            if (event.type === 'ERROR') {
              req.destroy();
              reject(new KubeApiError(event.object?.code ?? 500, event.object, 'WATCH', path));
              return;
            }
            onEvent(event);
          }
        });
        res.on('end', () => resolve());
        res.on('error', err => (signal.aborted ? resolve() : reject(err)));
      });
      req.on('timeout', () => req.destroy(new Error(`watch ${path}: no data for ${idleTimeoutMs} ms`)));
      req.on('error', err => (signal.aborted ? resolve() : reject(err)));
      req.end();
    });
  }
}
