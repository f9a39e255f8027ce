import http from 'node:http';
import { AddressInfo } from 'node:net';
import { FakePlatform, fakeChange, fakePlatform } from './fakePlatforms';

/**
 * A small SSE server on 127.0.0.1 speaking the backend's GET /events
 * contract: a snapshot of `count` platforms, then MODIFIED events at a fixed
 * rate while `streaming` is on, and heartbeats.
 */
export class FakeEventServer {
  readonly platforms: FakePlatform[];
  sent = 0;
  private rate = 0;
  private streamStart = 0;
  private streamSent = 0;
  private seq = 0;
  private readonly clients = new Set<http.ServerResponse>();
  private readonly timer: NodeJS.Timeout;
  private seed = 42;
  private server?: http.Server;

  constructor(count: number) {
    this.platforms = Array.from({ length: count }, (_, i) => fakePlatform(i));
    // Paced by elapsed time, not by ticks, so timer jitter does not change the rate.
    this.timer = setInterval(() => this.tick(), 5);
  }

  get connections() {
    return this.clients.size;
  }

  /** Deterministic, so runs are comparable. */
  private random = () => {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed / 2147483648;
  };

  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => {
      if (req.method !== 'GET' || !req.url?.startsWith('/events')) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
      });
      res.socket?.setNoDelay(true);
      res.write(
        `id: ${this.seq}\nevent: snapshot\ndata: ${JSON.stringify({
          items: this.platforms,
        })}\n\n`,
      );
      this.clients.add(res);
      req.on('close', () => this.clients.delete(res));
    });
    await new Promise<void>(resolve =>
      this.server!.listen(0, '127.0.0.1', resolve),
    );
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Starts (rate > 0) or stops (0) the stream of MODIFIED events. */
  setRate(eventsPerSecond: number) {
    this.rate = eventsPerSecond;
    this.streamStart = Date.now();
    this.streamSent = 0;
  }

  private tick() {
    if (!this.rate || this.clients.size === 0) return;
    const due = Math.floor(
      ((Date.now() - this.streamStart) / 1000) * this.rate,
    );
    let frames = '';
    while (this.streamSent < due) {
      const i = Math.floor(this.random() * this.platforms.length);
      this.platforms[i] = fakeChange(this.platforms[i], this.random);
      this.seq++;
      frames += `id: ${this.seq}\nevent: MODIFIED\ndata: ${JSON.stringify({
        type: 'MODIFIED',
        platform: this.platforms[i],
      })}\n\n`;
      this.streamSent++;
      this.sent++;
    }
    if (frames) for (const c of this.clients) c.write(frames);
  }

  async close() {
    clearInterval(this.timer);
    for (const c of this.clients) c.end();
    await new Promise<void>(resolve =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
