import { QdrantClusterInfo } from '@cv-platform/inference-platform-api';

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
      };
  status: string;
  time: number;
}

/**
 * Reads cluster membership and Raft state from Qdrant's REST API. Failures
 * are answers, not exceptions: the caller records them in status.
 */
export class QdrantAdminClient {
  constructor(private readonly timeoutMs = 2000) {}

  async clusterInfo(baseUrl: string, apiKey?: string): Promise<QdrantClusterInfo> {
    try {
      const res = await fetch(`${baseUrl.replace(/\/$/, '')}/cluster`, {
        headers: apiKey ? { 'api-key': apiKey } : {},
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        return { reachable: false, message: `GET /cluster answered ${res.status} ${res.statusText}` };
      }
      const body = (await res.json()) as ClusterResponse;
      if (body.result.status === 'disabled') {
        return { reachable: true, peers: [], message: 'cluster mode disabled (single peer)' };
      }
      const r = body.result;
      return {
        reachable: true,
        peerId: String(r.peer_id),
        peers: Object.entries(r.peers)
          .map(([id, v]) => ({ id, uri: v.uri }))
          .sort((a, b) => a.id.localeCompare(b.id)),
        raftLeader: r.raft_info.leader === null || r.raft_info.leader === undefined ? undefined : String(r.raft_info.leader),
        raftTerm: r.raft_info.term,
        pendingOperations: r.raft_info.pending_operations,
      };
    } catch (e: any) {
      const cause = e?.cause?.code ?? e?.cause?.message ?? e?.name;
      return { reachable: false, message: `GET ${baseUrl}/cluster failed: ${e?.message ?? e}${cause ? ` (${cause})` : ''}` };
    }
  }
}
