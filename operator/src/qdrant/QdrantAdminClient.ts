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

/** One GET against Qdrant's REST API: the answer's status and parsed body. */
export type QdrantGet = (url: string, headers: Record<string, string>, timeoutMs: number) => Promise<{ status: number; body: any }>;

/** Straight to the Service's address: an operator running inside the cluster. */
export const directQdrantGet: QdrantGet = async (url, headers, timeoutMs) => {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain-text answers (health endpoints, some errors)
  }
  return { status: res.status, body };
};

/**
 * Reads cluster membership and Raft state from Qdrant's REST API. Failures
 * are answers, not exceptions: the caller records them in status.
 */
export class QdrantAdminClient {
  constructor(
    private readonly timeoutMs = 2000,
    private readonly get: QdrantGet = directQdrantGet,
  ) {}

  async clusterInfo(baseUrl: string, apiKey?: string): Promise<QdrantClusterInfo> {
    try {
      const res = await this.get(`${baseUrl.replace(/\/$/, '')}/cluster`, apiKey ? { 'api-key': apiKey } : {}, this.timeoutMs);
      if (res.status < 200 || res.status >= 300) {
        const why = typeof res.body === 'string' ? res.body : res.body?.status?.error ?? res.body?.message ?? '';
        return { reachable: false, message: `GET /cluster answered ${res.status}${why ? `: ${String(why).slice(0, 200)}` : ''}` };
      }
      const body = res.body as ClusterResponse;
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
