import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Operator, PlatformEvent } from '@cv-platform/operator';
import { toV1beta1 } from '@cv-platform/inference-platform-api';

interface BufferedEvent {
  seq: number;
  frame: string;
  namespace: string;
  name: string;
}

/** Which platforms a client follows: all, one namespace's, or one. */
export interface FeedScope {
  namespace?: string;
  name?: string;
}

export interface FeedConnection {
  scope?: FeedScope;
  /** Whether the client may still read; asked every permissionRecheckMs (false or an error ends the stream). */
  mayRead?: () => Promise<boolean>;
  /** When the client's credentials expire: the stream ends then, and the client reconnects with renewed ones. */
  expiresAt?: Date;
}

export interface PlatformFeedOptions {
  /** The cluster the operator manages, named in every snapshot and change event. Default: `default`. */
  cluster?: string;
  /** How many past events a reconnecting client can resume from. */
  bufferSize?: number;
  heartbeatMs?: number;
  /** Bytes queued for one client before it is dropped as too slow. */
  maxBufferedBytes?: number;
  /** How often a long-lived stream's read permission is checked again. Default 5 minutes. */
  permissionRecheckMs?: number;
}

interface Client {
  res: Response;
  scope: FeedScope;
  mayRead?: () => Promise<boolean>;
  checking?: boolean;
}

const inScope = (scope: FeedScope, namespace: string, name: string) =>
  (!scope.namespace || scope.namespace === namespace) &&
  (!scope.name || scope.name === name);

/**
 * The live feed behind GET /events: one subscription to the operator's
 * informer (one upstream watch) fanned out to every SSE client. Each event is
 * serialised once; ids are `<epoch>-<seq>` so a client can resume with
 * Last-Event-ID after a reconnect, and ids from before a restart (another
 * epoch) or older than the buffer get an explicit reset and a fresh snapshot.
 */
export class PlatformFeed {
  private readonly epoch = randomBytes(4).toString('hex');
  private seq = 0;
  private readonly buffer: BufferedEvent[] = [];
  private readonly clients = new Set<Client>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly recheck: NodeJS.Timeout;
  dropped = 0;
  /** Streams ended because their read permission was withdrawn or their credentials expired. */
  revoked = 0;

  constructor(
    private readonly operator: Operator,
    private readonly options: PlatformFeedOptions = {},
  ) {
    this.unsubscribe = operator.subscribe(e => this.publish(e));
    this.heartbeat = setInterval(() => {
      for (const c of this.clients) this.write(c, ': heartbeat\n\n');
    }, options.heartbeatMs ?? 15_000);
    this.heartbeat.unref?.();
    this.recheck = setInterval(() => {
      for (const c of this.clients) void this.checkStillAllowed(c);
    }, options.permissionRecheckMs ?? 300_000);
    this.recheck.unref?.();
  }

  private async checkStillAllowed(c: Client) {
    if (!c.mayRead || c.checking) return;
    c.checking = true;
    const allowed = await c.mayRead().catch(() => false);
    c.checking = false;
    if (!allowed) this.revoke(c, 'read permission withdrawn');
  }

  private revoke(c: Client, reason: string) {
    if (!this.clients.delete(c)) return;
    this.revoked++;
    if (!c.res.writableEnded)
      c.res.end(`event: forbidden\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  get clientCount(): number {
    return this.clients.size;
  }

  private get cluster() {
    return this.options.cluster ?? 'default';
  }

  private id(seq: number) {
    return `${this.epoch}-${seq}`;
  }

  private publish(e: PlatformEvent) {
    this.seq++;
    const frame = `id: ${this.id(this.seq)}\nevent: ${
      e.type
    }\ndata: ${JSON.stringify({
      cluster: this.cluster,
      type: e.type,
      platform: toV1beta1(e.platform),
    })}\n\n`;
    const namespace = e.platform.metadata.namespace!;
    const name = e.platform.metadata.name!;
    this.buffer.push({ seq: this.seq, frame, namespace, name });
    if (this.buffer.length > (this.options.bufferSize ?? 1000))
      this.buffer.shift();
    for (const c of this.clients)
      if (inScope(c.scope, namespace, name)) this.write(c, frame);
  }

  /** Writes, or drops a client whose socket cannot keep up. */
  private write(c: Client, frame: string) {
    if (c.res.writableEnded) return;
    if (
      c.res.writableLength > (this.options.maxBufferedBytes ?? 4 * 1024 * 1024)
    ) {
      this.dropped++;
      this.clients.delete(c);
      c.res.destroy();
      return;
    }
    c.res.write(frame);
  }

  private snapshotFrame(scope: FeedScope) {
    const items = this.operator
      .platforms()
      .filter(p => inScope(scope, p.metadata.namespace!, p.metadata.name!))
      .map(toV1beta1);
    return `id: ${this.id(this.seq)}\nevent: snapshot\ndata: ${JSON.stringify({
      cluster: this.cluster,
      items,
    })}\n\n`;
  }

  /** Serves one SSE connection until the client goes away. */
  connect(req: Request, res: Response, connection: FeedConnection = {}) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    // Proxies (nginx) must not buffer the stream.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const scope = connection.scope ?? {};
    const client: Client = { res, scope, mayRead: connection.mayRead };

    const lastId = req.header('last-event-id');
    const [epoch, seqText] = (lastId ?? '').split('-');
    const lastSeq = Number(seqText);
    const oldest = this.buffer.length ? this.buffer[0].seq : this.seq + 1;
    let first = 'retry: 2000\n\n';
    if (
      lastId &&
      epoch === this.epoch &&
      Number.isInteger(lastSeq) &&
      lastSeq >= oldest - 1 &&
      lastSeq <= this.seq
    ) {
      for (const e of this.buffer) {
        if (e.seq > lastSeq && inScope(scope, e.namespace, e.name))
          first += e.frame;
      }
    } else {
      if (lastId) {
        first += `event: reset\ndata: ${JSON.stringify({
          reason: `event ${lastId} is no longer buffered; a fresh snapshot follows`,
        })}\n\n`;
      }
      first += this.snapshotFrame(scope);
    }
    res.write(first);
    this.clients.add(client);
    // Credentials that expire end the stream then; the client reconnects with renewed ones.
    const expiresIn = connection.expiresAt
      ? connection.expiresAt.getTime() - Date.now()
      : undefined;
    const expiry =
      expiresIn !== undefined
        ? setTimeout(
            () => this.revoke(client, 'credentials expired; reconnect'),
            Math.max(0, expiresIn),
          )
        : undefined;
    expiry?.unref?.();
    const close = () => {
      clearTimeout(expiry);
      this.clients.delete(client);
    };
    req.on('close', close);
    res.on('close', close);
  }

  close() {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    clearInterval(this.recheck);
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}
