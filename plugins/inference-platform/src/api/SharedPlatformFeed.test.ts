import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import { PlatformFeedHandlers } from './InferencePlatformApi';
import { SharedPlatformFeed } from './SharedPlatformFeed';

const platform = (name: string, rv = '1') =>
  ({
    apiVersion: 'cv.platform.tech/v1beta1',
    kind: 'InferencePlatform',
    metadata: { name, namespace: 'team-a', resourceVersion: rv },
    spec: {} as any,
  } as InferencePlatformV1beta1);

function recorder() {
  const seen: string[] = [];
  const handlers: PlatformFeedHandlers = {
    onSnapshot: items =>
      seen.push(
        `snapshot ${items
          .map(i => `${i.metadata.name}@${i.metadata.resourceVersion}`)
          .join(',')}`,
      ),
    onChange: e => seen.push(`${e.type} ${e.platform.metadata.name}`),
    onStatus: s => seen.push(`status ${s.state}`),
  };
  return { seen, handlers };
}

describe('one stream per scope, shared by its subscribers', () => {
  it('opens on the first subscriber, brings late ones up to date, and closes after the last', async () => {
    let opened = 0;
    let upstream: PlatformFeedHandlers | undefined;
    let upstreamSignal: AbortSignal | undefined;
    let idle = 0;
    const feed = new SharedPlatformFeed(
      async (h, signal) => {
        opened++;
        upstream = h;
        upstreamSignal = signal;
        await new Promise(resolve => signal.addEventListener('abort', resolve));
      },
      () => idle++,
    );
    const a = recorder();
    const aDone = new AbortController();
    const aEnded = feed.subscribe(a.handlers, aDone.signal);
    upstream!.onStatus({ state: 'live', attempt: 0 });
    upstream!.onSnapshot([platform('one'), platform('two')]);
    upstream!.onChange({
      cluster: 'local',
      type: 'MODIFIED',
      platform: platform('one', '2'),
    });
    upstream!.onChange({
      cluster: 'local',
      type: 'DELETED',
      platform: platform('two'),
    });

    const b = recorder();
    const bDone = new AbortController();
    const bEnded = feed.subscribe(b.handlers, bDone.signal);
    expect(opened).toBe(1);
    // What the stream holds now, at once.
    expect(b.seen).toEqual(['status live', 'snapshot one@2']);
    upstream!.onChange({
      cluster: 'local',
      type: 'ADDED',
      platform: platform('three'),
    });
    expect(a.seen.at(-1)).toBe('ADDED three');
    expect(b.seen.at(-1)).toBe('ADDED three');

    aDone.abort();
    await aEnded;
    expect(upstreamSignal!.aborted).toBe(false);
    bDone.abort();
    await bEnded;
    expect(upstreamSignal!.aborted).toBe(true);
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(idle).toBe(1);

    // A new subscriber opens a new stream, with nothing replayed from the old one.
    const c = recorder();
    const cDone = new AbortController();
    const cEnded = feed.subscribe(c.handlers, cDone.signal);
    expect(opened).toBe(2);
    expect(c.seen).toEqual([]);
    cDone.abort();
    await cEnded;
  });
});
