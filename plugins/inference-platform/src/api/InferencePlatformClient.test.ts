import { FakeEventFeed } from '../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../__testUtils__/samplePlatform';
import { clientOfFeed } from '../__testUtils__/renderWithFeed';
import { PlatformFeedHandlers } from './InferencePlatformApi';

const BASE = 'http://backend.test/api/inference-platform';

function setup() {
  const feed = new FakeEventFeed();
  const client = clientOfFeed(feed);
  return { feed, client };
}

function handlers(): PlatformFeedHandlers & {
  snapshots: string[][];
  changes: { cluster: string; name?: string }[];
} {
  const snapshots: string[][] = [];
  const changes: { cluster: string; name?: string }[] = [];
  return {
    snapshots,
    changes,
    onSnapshot: items => snapshots.push(items.map(p => p.metadata.name!)),
    onChange: e =>
      changes.push({ cluster: e.cluster, name: e.platform.metadata.name }),
    onStatus: () => {},
  };
}

async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) {
    await new Promise(resolve => setTimeout(resolve, 5));
  }
  expect(check()).toBe(true);
}

describe('InferencePlatformClient', () => {
  it('lists the clusters', async () => {
    const { feed, client } = setup();
    const items = [
      { name: 'east', default: true, available: true },
      { name: 'west', default: false, available: false },
    ];
    feed.on('GET /clusters', () => ({ status: 200, body: { items } }));
    await expect(client.listClusters()).resolves.toEqual(items);
    expect(feed.requests.map(r => r.url)).toEqual([`${BASE}/clusters`]);
  });

  it('sends no cluster parameter for a ref without a cluster', async () => {
    const { feed, client } = setup();
    feed.on('GET /platforms/team-a/search', () => ({ status: 200, body: {} }));
    feed.on('PATCH /platforms/team-a/search', () => ({
      status: 200,
      body: {},
    }));
    feed.on('DELETE /platforms/team-a/search', () => ({ status: 204 }));
    feed.on('POST /platforms/team-a/search/backups', () => ({
      status: 202,
      body: { requestedAt: 'now' },
    }));
    feed.on('GET /platforms/team-a/search/restores', () => ({
      status: 200,
      body: { items: [] },
    }));
    feed.on(
      'GET /platforms/team-a/search/objects/StatefulSet/search-qdrant',
      () => ({
        status: 200,
        body: {},
      }),
    );
    feed.on(
      'GET /platforms/team-a/search/pods/p-0/log?container=qdrant&tailLines=500',
      () => ({ status: 200, body: 'log' }),
    );
    const ref = { namespace: 'team-a', name: 'search' };
    await client.getPlatform(ref);
    await client.patchPlatform(ref, { qdrant: { replicas: 2 } });
    await client.deletePlatform(ref);
    await client.requestBackup(ref);
    await client.listRestores(ref);
    await client.getObject(ref, 'StatefulSet', 'search-qdrant');
    await expect(
      client.getPodLog(ref, 'p-0', { container: 'qdrant' }),
    ).resolves.toBe('log');
    expect(feed.requests.map(r => `${r.method} ${r.url}`)).toEqual([
      `GET ${BASE}/platforms/team-a/search`,
      `PATCH ${BASE}/platforms/team-a/search`,
      `DELETE ${BASE}/platforms/team-a/search`,
      `POST ${BASE}/platforms/team-a/search/backups`,
      `GET ${BASE}/platforms/team-a/search/restores`,
      `GET ${BASE}/platforms/team-a/search/objects/StatefulSet/search-qdrant`,
      `GET ${BASE}/platforms/team-a/search/pods/p-0/log?container=qdrant&tailLines=500`,
    ]);
  });

  it('addresses the cluster a ref names in every per-platform call', async () => {
    const { feed, client } = setup();
    const q = '?cluster=west';
    feed.on(`GET /platforms/team-a/search${q}`, () => ({
      status: 200,
      body: { cluster: 'west' },
    }));
    feed.on(`PATCH /platforms/team-a/search${q}`, body => ({
      status: 200,
      body,
    }));
    feed.on(`DELETE /platforms/team-a/search${q}`, () => ({ status: 204 }));
    feed.on(`POST /platforms/team-a/search/backups${q}`, () => ({
      status: 202,
      body: { requestedAt: 'now' },
    }));
    feed.on(`GET /platforms/team-a/search/restores${q}`, () => ({
      status: 200,
      body: { items: [] },
    }));
    feed.on(`POST /platforms/team-a/search/restores${q}`, body => ({
      status: 201,
      body,
    }));
    feed.on(`GET /platforms/team-a/search/objects/Deployment/d${q}`, () => ({
      status: 200,
      body: {},
    }));
    feed.on(
      'GET /platforms/team-a/search/pods/p-0/log?cluster=west&container=c&tailLines=10&previous=true',
      () => ({ status: 200, body: 'old log' }),
    );
    const ref = { cluster: 'west', namespace: 'team-a', name: 'search' };
    await expect(client.getPlatform(ref)).resolves.toEqual({
      cluster: 'west',
    });
    await client.patchPlatform(ref, { inference: { replicas: 2 } });
    await client.deletePlatform(ref);
    await client.requestBackup(ref);
    await client.listRestores(ref);
    await client.createRestore(ref, { backupId: 'b1' });
    await client.getObject(ref, 'Deployment', 'd');
    await expect(
      client.getPodLog(ref, 'p-0', {
        container: 'c',
        previous: true,
        tailLines: 10,
      }),
    ).resolves.toBe('old log');
    // Every request reached a registered route: none answered 404.
    expect(feed.requests).toHaveLength(8);
    expect(feed.requests.every(r => r.url.includes('cluster=west'))).toBe(true);
    expect(feed.requests[1].body).toEqual({ inference: { replicas: 2 } });
  });

  it('shares one stream per cluster and scope, and opens one per cluster', async () => {
    const { feed, client } = setup();
    const east1 = handlers();
    const east2 = handlers();
    const west = handlers();
    const plain = handlers();
    const controller = new AbortController();
    const { signal } = controller;
    const done = [
      client.streamEvents(east1, signal, { cluster: 'east' }),
      client.streamEvents(east2, signal, { cluster: 'east' }),
      client.streamEvents(west, signal, { cluster: 'west' }),
      client.streamEvents(plain, signal),
    ];
    await feed.waitForConnections(3);
    expect(feed.connections.map(c => c.url).sort()).toEqual([
      `${BASE}/events`,
      `${BASE}/events?cluster=east`,
      `${BASE}/events?cluster=west`,
    ]);

    feed.snapshot([samplePlatform('a')], feed.connectionOf('east'));
    feed.snapshot([samplePlatform('b')], feed.connectionOf('west'));
    feed.change('ADDED', samplePlatform('c'), feed.connectionOf('east'));
    await until(
      () => east2.changes.length === 1 && west.snapshots.length === 1,
    );
    expect(east1.snapshots).toEqual([['a']]);
    expect(east2.snapshots).toEqual([['a']]);
    expect(west.snapshots).toEqual([['b']]);
    expect(plain.snapshots).toEqual([]);
    // The event carries no cluster: the stream's own stands in.
    expect(east1.changes).toEqual([{ cluster: 'east', name: 'c' }]);
    expect(west.changes).toEqual([]);

    // A scope within a cluster is a stream of its own.
    const one = handlers();
    const oneDone = client.streamEvents(one, signal, {
      cluster: 'east',
      platform: 'team-a/a',
    });
    await feed.waitForConnections(4);
    expect(feed.latest.url).toBe(
      `${BASE}/events?cluster=east&platform=team-a%2Fa`,
    );

    controller.abort();
    await Promise.all([...done, oneDone]);
    expect(feed.connections.every(c => c.closed)).toBe(true);
  });
});
