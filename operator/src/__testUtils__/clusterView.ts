import { ClusterView } from '../qdrant/observeCluster';
import { ShardState } from '../qdrant/QdrantPeerClient';

/** A view of peers 0..n-1 (ids "10", "11", ...) led by peer 0, with the given placement. */
export function view(
  n: number,
  collections: Record<
    string,
    { rf?: number; shards: Array<Array<[number, ShardState?]>> }
  >,
  opts: { down?: number[]; transfers?: number; leader?: boolean } = {},
): ClusterView {
  const id = (o: number) => String(10 + o);
  const members = Array.from({ length: n }, (_, o) => ({
    id: id(o),
    uri: `http://q-qdrant-${o}.q-qdrant-headless.ns.svc:6335/`,
    ordinal: o,
  }));
  const peers = members.map(m => ({
    ordinal: m.ordinal,
    pod: `q-qdrant-${m.ordinal}`,
    url: `http://x/${m.ordinal}`,
    ...(opts.down?.includes(m.ordinal)
      ? { error: 'GET /cluster failed: fetch failed (ECONNREFUSED)' }
      : {
          status: {
            peerId: m.id,
            peers: Object.fromEntries(members.map(x => [x.id, x.uri])),
            leader: opts.leader === false ? undefined : id(0),
            role: m.ordinal === 0 ? 'Leader' : 'Follower',
            term: 1,
            commit: 5,
            pendingOperations: 0,
            consensusThread: 'working',
          },
        }),
  }));
  return {
    peers,
    authority: peers[0],
    members,
    leader: opts.leader === false ? undefined : id(0),
    collections: Object.entries(collections).map(([name, c]) => ({
      name,
      replicationFactor: c.rf ?? 1,
      layout: {
        shardCount: c.shards.length,
        replicas: c.shards.flatMap((on, shard) =>
          on.map(([o, state]) => ({
            shard,
            peerId: id(o),
            state: state ?? 'Active',
          })),
        ),
        transfers: Array.from({ length: opts.transfers ?? 0 }, () => ({
          shard: 0,
          from: id(2),
          to: id(0),
        })),
      },
    })),
    errors: [],
  };
}
