import {
  InferencePlatformV1beta1,
  PlatformChangeEvent,
} from '@cv-platform/plugin-inference-platform-common';
import { ConnectionStatus } from './ConnectionStatus';
import { PlatformFeedHandlers } from './InferencePlatformApi';

const keyOf = (p: InferencePlatformV1beta1) =>
  `${p.metadata.namespace}/${p.metadata.name}`;

/**
 * One SSE stream shared by every subscriber to the same scope in a browser
 * tab: the first subscriber opens it, later ones are brought up to date from
 * what it holds (the last snapshot with the changes since, and the
 * connection's status), and the last one to leave closes it.
 */
export class SharedPlatformFeed {
  private readonly subscribers = new Set<PlatformFeedHandlers>();
  private readonly items = new Map<string, InferencePlatformV1beta1>();
  private loaded = false;
  private status?: ConnectionStatus;
  private controller?: AbortController;
  private closed?: Promise<void>;

  constructor(
    private readonly open: (
      handlers: PlatformFeedHandlers,
      signal: AbortSignal,
    ) => Promise<void>,
    /** Called once the last subscriber has left and the stream is closed. */
    private readonly onIdle: () => void,
  ) {}

  /** Resolves when `signal` aborts (never rejects), like a stream of one's own. */
  subscribe(
    handlers: PlatformFeedHandlers,
    signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    this.subscribers.add(handlers);
    if (this.status) handlers.onStatus(this.status);
    if (this.loaded) handlers.onSnapshot([...this.items.values()]);
    if (!this.controller) this.start();
    return new Promise(resolve => {
      signal.addEventListener(
        'abort',
        () => {
          this.subscribers.delete(handlers);
          if (this.subscribers.size === 0) this.stop();
          resolve();
        },
        { once: true },
      );
    });
  }

  get size(): number {
    return this.subscribers.size;
  }

  private start() {
    const controller = new AbortController();
    this.controller = controller;
    this.closed = this.open(
      {
        onSnapshot: items => {
          this.items.clear();
          for (const p of items) this.items.set(keyOf(p), p);
          this.loaded = true;
          for (const s of this.subscribers) s.onSnapshot(items);
        },
        onChange: (event: PlatformChangeEvent) => {
          if (event.type === 'DELETED')
            this.items.delete(keyOf(event.platform));
          else this.items.set(keyOf(event.platform), event.platform);
          for (const s of this.subscribers) s.onChange(event);
        },
        onStatus: status => {
          this.status = status;
          for (const s of this.subscribers) s.onStatus(status);
        },
      },
      controller.signal,
    );
  }

  private stop() {
    this.controller?.abort();
    this.controller = undefined;
    this.items.clear();
    this.loaded = false;
    this.status = undefined;
    void this.closed?.then(() => {
      if (this.subscribers.size === 0) this.onIdle();
    });
  }
}
