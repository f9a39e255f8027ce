import { FetchApi } from '@backstage/core-plugin-api';
import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';

/** One request the fake backend received on GET /events. */
export interface FakeConnection {
  url: string;
  lastEventId?: string;
  authorization?: string;
  /** Writes one SSE event to this connection. */
  send(event: string, data: unknown, id?: string): void;
  /** Writes raw SSE text (comments, partial frames). */
  write(text: string): void;
  /** Ends the stream as a backend restart would. */
  close(): void;
  closed: boolean;
}

type Reply = { status: number; body: unknown } | 'stream';

/**
 * A stand-in for the backend's SSE endpoint and REST routes, speaking the
 * contract of plugin-inference-platform-common over real Response streams,
 * so the code under test runs fetchEventSource unmodified.
 */
export class FakeEventFeed {
  readonly connections: FakeConnection[] = [];
  /** Replies for the next GET /events requests, consumed in order; default streams. */
  readonly nextEventReplies: Reply[] = [];
  readonly requests: { method: string; url: string; body?: unknown }[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly rest = new Map<
    string,
    (body: unknown) => { status: number; body?: unknown }
  >();
  private nextId = 1;

  /** Registers a REST reply, keyed by "METHOD /path" below the plugin base URL. */
  on(
    route: string,
    reply: (body: unknown) => { status: number; body?: unknown },
  ) {
    this.rest.set(route, reply);
  }

  get latest(): FakeConnection {
    const c = this.connections[this.connections.length - 1];
    if (!c) throw new Error('no connection to the fake event feed yet');
    return c;
  }

  /** Resolves once `count` connections have been made. */
  async waitForConnections(count: number): Promise<void> {
    while (this.connections.length < count) {
      await new Promise<void>(resolve => this.waiters.push(resolve));
    }
  }

  /**
   * The latest connection following `cluster` (its `?cluster=` parameter);
   * without one, the latest connection that names no cluster.
   */
  connectionOf(cluster?: string): FakeConnection {
    const c = [...this.connections]
      .reverse()
      .find(
        conn =>
          (new URL(conn.url).searchParams.get('cluster') ?? undefined) ===
          cluster,
      );
    if (!c) throw new Error(`no connection for cluster ${cluster} yet`);
    return c;
  }

  /** Sends a snapshot on `to` (default: the latest connection). */
  snapshot(items: InferencePlatformV1beta1[], to?: FakeConnection) {
    (to ?? this.latest).send('snapshot', { items }, String(this.nextId++));
  }

  change(
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    platform: InferencePlatformV1beta1,
    to?: FakeConnection,
  ) {
    (to ?? this.latest).send(type, { type, platform }, String(this.nextId++));
  }

  readonly fetchApi: FetchApi = {
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      const method = init?.method ?? 'GET';
      const body =
        typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      this.requests.push({ method, url, body });
      const path = url.replace(/^.*\/api\/inference-platform/, '');
      if (method === 'GET' && path.startsWith('/events')) {
        return this.openStream(url, init);
      }
      const handler = this.rest.get(`${method} ${path}`);
      if (!handler) {
        return json(404, {
          error: {
            name: 'NotFoundError',
            message: `no fake for ${method} ${path}`,
          },
        });
      }
      const reply = handler(body);
      return reply.status === 204
        ? new Response(null, { status: 204 })
        : json(reply.status, reply.body);
    }) as typeof fetch,
  };

  private openStream(url: string, init?: RequestInit): Response {
    const reply = this.nextEventReplies.shift() ?? 'stream';
    const headers = (init?.headers ?? {}) as Record<string, string>;
    if (reply !== 'stream') {
      this.recordConnection(url, headers, undefined);
      return json(reply.status, reply.body);
    }
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    const connection = this.recordConnection(url, headers, {
      write: text => {
        if (!connection.closed) controller.enqueue(encoder.encode(text));
      },
      close: () => {
        if (connection.closed) return;
        connection.closed = true;
        controller.close();
      },
    });
    init?.signal?.addEventListener('abort', () => {
      if (connection.closed) return;
      connection.closed = true;
      controller.error(new DOMException('aborted', 'AbortError'));
    });
    return new Response(stream, {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream' },
    });
  }

  private recordConnection(
    url: string,
    headers: Record<string, string>,
    io: { write(text: string): void; close(): void } | undefined,
  ): FakeConnection {
    const write =
      io?.write ??
      (() => {
        throw new Error('this connection was refused, it has no stream');
      });
    const connection: FakeConnection = {
      url,
      lastEventId: headers['last-event-id'],
      authorization: headers.authorization ?? headers.Authorization,
      write,
      send(event, data, id) {
        write(
          `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(
            data,
          )}\n\n`,
        );
      },
      close: io?.close ?? (() => {}),
      closed: !io,
    };
    this.connections.push(connection);
    this.waiters.splice(0).forEach(w => w());
    return connection;
  }
}

function json(status: number, body: unknown): Response {
  // Text answers (pod logs) as the backend sends them.
  if (typeof body === 'string')
    return new Response(body, {
      status,
      headers: { 'Content-Type': 'text/plain' },
    });
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}
