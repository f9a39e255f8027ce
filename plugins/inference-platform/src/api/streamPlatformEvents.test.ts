import { waitFor } from '@testing-library/react';
import { ConnectionStatus } from './ConnectionStatus';
import { streamPlatformEvents } from './streamPlatformEvents';
import { FakeEventFeed } from '../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../__testUtils__/samplePlatform';

type Reply = FakeEventFeed['nextEventReplies'][number];

function setup(
  options: {
    staleAfterMs?: number;
    offlineAfterAttempts?: number;
    replies?: Reply[];
  } = {},
) {
  const feed = new FakeEventFeed();
  // The first request goes out synchronously, so refusals are queued first.
  feed.nextEventReplies.push(...(options.replies ?? []));
  const controller = new AbortController();
  const statuses: ConnectionStatus[] = [];
  const snapshots: string[][] = [];
  const changes: string[] = [];
  const done = streamPlatformEvents({
    url: 'http://backend/api/inference-platform/events',
    fetch: feed.fetchApi.fetch,
    signal: controller.signal,
    backoff: { baseMs: 10, maxMs: 40, jitter: 0 },
    offlineAfterAttempts: options.offlineAfterAttempts ?? 3,
    staleAfterMs: options.staleAfterMs,
    handlers: {
      onSnapshot: items => snapshots.push(items.map(p => p.metadata.name!)),
      onChange: e => changes.push(`${e.type} ${e.platform.metadata.name}`),
      onStatus: s => statuses.push(s),
    },
  });
  const states = () => statuses.map(s => s.state);
  return { feed, controller, statuses, states, snapshots, changes, done };
}

describe('streamPlatformEvents', () => {
  it('delivers the snapshot and changes, and reports live', async () => {
    const t = setup();
    await t.feed.waitForConnections(1);
    t.feed.snapshot([samplePlatform('a'), samplePlatform('b')]);
    t.feed.change('MODIFIED', samplePlatform('a'));
    t.feed.latest.write(': heartbeat\n\n');
    t.feed.change('DELETED', samplePlatform('b'));
    await waitFor(() => expect(t.changes).toEqual(['MODIFIED a', 'DELETED b']));
    expect(t.snapshots).toEqual([['a', 'b']]);
    expect(t.states()).toEqual(['connecting', 'live']);
    t.controller.abort();
    await t.done;
  });

  it('reconnects with Last-Event-ID after the backend closes the stream', async () => {
    const t = setup();
    await t.feed.waitForConnections(1);
    t.feed.latest.send('snapshot', { items: [] }, '41');
    t.feed.latest.send(
      'ADDED',
      { type: 'ADDED', platform: samplePlatform('a') },
      '42',
    );
    await waitFor(() => expect(t.changes).toEqual(['ADDED a']));
    t.feed.latest.close();
    await t.feed.waitForConnections(2);
    expect(t.feed.connections[0].lastEventId).toBeUndefined();
    expect(t.feed.connections[1].lastEventId).toBe('42');
    await waitFor(() =>
      expect(t.states()).toEqual([
        'connecting',
        'live',
        'reconnecting',
        'live',
      ]),
    );
    expect(t.statuses[2].error).toMatch(/closed the stream/);
    t.controller.abort();
    await t.done;
  });

  it('backs off on server errors, turns offline after repeated failures, and recovers', async () => {
    const unavailable = {
      status: 503,
      body: { error: { name: 'Error', message: 'kube API down' } },
    };
    const t = setup({
      offlineAfterAttempts: 3,
      replies: [unavailable, unavailable, unavailable],
    });
    await t.feed.waitForConnections(4);
    await waitFor(() => expect(t.states().slice(-1)).toEqual(['live']));
    expect(t.states()).toEqual([
      'connecting',
      'reconnecting',
      'reconnecting',
      'offline',
      'live',
    ]);
    expect(t.statuses.slice(1, 4).map(s => s.attempt)).toEqual([1, 2, 3]);
    expect(t.statuses[1].error).toBe('HTTP 503: kube API down');
    const delays = t.statuses.slice(1, 4).map(s => s.retryAt! - Date.now());
    // Doubling from 10 ms, capped at 40 ms; retryAt is in the past by now.
    expect(delays.every(d => d <= 40)).toBe(true);
    t.controller.abort();
    await t.done;
  });

  it('stops retrying when the user lacks permission', async () => {
    const t = setup({
      replies: [
        {
          status: 403,
          body: { error: { name: 'NotAllowedError', message: 'denied' } },
        },
      ],
    });
    await t.done;
    expect(t.feed.connections).toHaveLength(1);
    const last = t.statuses[t.statuses.length - 1];
    expect(last).toMatchObject({ state: 'offline', fatal: true });
    expect(last.error).toMatch(/inference-platform\.read/);
  });

  it('treats a silent stream as dead and resumes it', async () => {
    const t = setup({ staleAfterMs: 300 });
    await t.feed.waitForConnections(1);
    t.feed.latest.send('snapshot', { items: [] }, '7');
    // No heartbeat follows: the watchdog must give up on this stream.
    await t.feed.waitForConnections(2);
    expect(t.feed.connections[1].lastEventId).toBe('7');
    expect(t.statuses.find(s => s.state === 'reconnecting')?.error).toMatch(
      /no data/,
    );
    t.controller.abort();
    await t.done;
  });

  it('ignores a malformed event and keeps the stream', async () => {
    const t = setup();
    await t.feed.waitForConnections(1);
    t.feed.latest.write('event: MODIFIED\ndata: {not json\n\n');
    t.feed.change('ADDED', samplePlatform('c'));
    await waitFor(() => expect(t.changes).toEqual(['ADDED c']));
    expect(t.feed.connections).toHaveLength(1);
    t.controller.abort();
    await t.done;
  });
});
