import { QdrantClusterInfo, QdrantCollectionHealth } from '@cv-platform/inference-platform-api';
import { directQdrantRequest, QdrantRequest } from './QdrantPeerClient';
import { podOfPeerUri } from './observeCluster';

/** Shape of Qdrant's `GET /cluster` answer (see Qdrant's OpenAPI `ClusterStatus`). */
interface ClusterResponse {
  result:
    | { status: 'disabled' }
    | {
        status: 'enabled';
        peer_id: number;
        peers: Record<string, { uri: string }>;
        raft_info: {
          term: number;
          commit: number;
          pending_operations: number;
          leader?: number | null;
          role?: string | null;
          is_voter: boolean;
        };
        consensus_thread_status?: { consensus_thread_status?: string };
      };
  status: string;
  time: number;
}

/**
 * Reads cluster membership and Raft state from Qdrant's REST API. Failures
 * are answers, not exceptions: the caller records them in status.
 *
 * @public
 */
export class QdrantAdminClient {
  constructor(
    private readonly timeoutMs = 2000,
    private readonly request: QdrantRequest = directQdrantRequest,
  ) {}

  private get(url: string, headers: Record<string, string>) {
    return this.request({ method: 'GET', url, headers, timeoutMs: this.timeoutMs });
  }

  async clusterInfo(baseUrl: string, apiKey?: string): Promise<QdrantClusterInfo> {
    try {
      const res = await this.get(`${baseUrl.replace(/\/$/, '')}/cluster`, apiKey ? { 'api-key': apiKey } : {});
      if (res.status < 200 || res.status >= 300) {
        const why = typeof res.body === 'string' ? res.body : res.body?.status?.error ?? res.body?.message ?? '';
        return { reachable: false, message: `GET /cluster answered ${res.status}${why ? `: ${String(why).slice(0, 200)}` : ''}` };
      }
      const body = res.body as ClusterResponse;
      if (body.result.status === 'disabled') {
        return { reachable: true, peers: [], message: 'cluster mode disabled (single peer)' };
      }
      const r = body.result;
      const peers = Object.entries(r.peers)
        .map(([id, v]) => ({ id, uri: v.uri }))
        .sort((a, b) => a.id.localeCompare(b.id));
      const collections = await this.collections(baseUrl, apiKey, peers);
      return {
        reachable: true,
        peerId: String(r.peer_id),
        peers,
        raftLeader: r.raft_info.leader === null || r.raft_info.leader === undefined ? undefined : String(r.raft_info.leader),
        raftTerm: r.raft_info.term,
        raftCommit: r.raft_info.commit,
        pendingOperations: r.raft_info.pending_operations,
        ...(r.consensus_thread_status?.consensus_thread_status ? { consensus: r.consensus_thread_status.consensus_thread_status } : {}),
        ...(collections ? { collections } : {}),
      };
    } catch (e: any) {
      const cause = e?.cause?.code ?? e?.cause?.message ?? e?.name;
      return { reachable: false, message: `GET ${baseUrl}/cluster failed: ${e?.message ?? e}${cause ? ` (${cause})` : ''}` };
    }
  }

  /**
   * Each collection's shard replicas by state, from any one peer (each
   * knows every replica's state); undefined when they cannot be read.
   */
  private async collections(
    baseUrl: string,
    apiKey: string | undefined,
    peers: Array<{ id: string; uri: string }>,
  ): Promise<QdrantCollectionHealth[] | undefined> {
    const base = baseUrl.replace(/\/$/, '');
    const headers: Record<string, string> = apiKey ? { 'api-key': apiKey } : {};
    const read = async (path: string) => {
      const res = await this.get(`${base}${path}`, headers);
      if (res.status < 200 || res.status >= 300) throw new Error(`GET ${path} answered ${res.status}`);
      return res.body.result;
    };
    const who = (id: string) => {
      const pod = podOfPeerUri(peers.find(p => p.id === id)?.uri);
      return `peer ${id}${pod ? ` (${pod})` : ''}`;
    };
    try {
      const names: string[] = ((await read('/collections')).collections ?? []).map((c: any) => String(c.name)).sort();
      return await Promise.all(
        names.map(async name => {
          const path = `/collections/${encodeURIComponent(name)}`;
          const [info, layout] = await Promise.all([read(path), read(`${path}/cluster`)]);
          const replicas: Record<string, number> = {};
          const problems: string[] = [];
          const moving = new Set((layout.shard_transfers ?? []).flatMap((t: any) => [`${t.shard_id}@${t.from}`, `${t.shard_id}@${t.to}`]));
          const all = [
            ...(layout.local_shards ?? []).map((x: any) => ({ ...x, peer_id: layout.peer_id })),
            ...(layout.remote_shards ?? []),
          ];
          const perPeer: Record<string, number> = Object.fromEntries(peers.map(p => [p.id, 0]));
          for (const x of all) {
            replicas[x.state] = (replicas[x.state] ?? 0) + 1;
            perPeer[String(x.peer_id)] = (perPeer[String(x.peer_id)] ?? 0) + 1;
            if (x.state !== 'Active' && !moving.has(`${x.shard_id}@${x.peer_id}`)) {
              problems.push(`shard ${x.shard_id} of ${name} on ${who(String(x.peer_id))} is ${x.state}`);
            }
          }
          return {
            name,
            replicationFactor: info.config?.params?.replication_factor ?? 1,
            shards: layout.shard_count ?? 0,
            replicas,
            perPeer,
            transfers: (layout.shard_transfers ?? []).length,
            ...(problems.length ? { problems: problems.sort() } : {}),
          };
        }),
      );
    } catch {
      return undefined;
    }
  }
}
