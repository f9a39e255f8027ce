import type { InferencePlatform, QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { qdrantUnsettled } from '../qdrant/qdrantUnsettled';
import { stableClusterInfo } from '../qdrant/stableClusterInfo';

/** How long a pass waits for Qdrant's first answer about a new cluster. */
const FIRST_CLUSTER_INFO_WAIT_MS = 1000;

/**
 * The last known cluster info per platform. Qdrant is asked in the
 * background when the answer is older than the TTL, so a slow or unreachable
 * Qdrant never holds up a reconcile for long; a changed answer queues the
 * platform for another pass. Only the very first answer is waited for,
 * briefly: without it the status would say "reading Qdrant's cluster state"
 * for one write and something else a moment later.
 */
export class ClusterInfoCache {
  private readonly answers = new Map<string, { at: number; info: QdrantClusterInfo; readyPeers: number }>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Platforms whose pass is waiting for Qdrant's first answer (it takes the answer along). */
  private readonly awaited = new Set<string>();

  constructor(
    private readonly o: {
      fetch: (p: InferencePlatform) => Promise<QdrantClusterInfo>;
      ttlMs: number;
      requeue?: (key: string) => void;
    },
  ) {}

  /** When the answer the cache holds was given. */
  answeredAt(key: string): number | undefined {
    return this.answers.get(key)?.at;
  }

  /** Whether Qdrant is being asked right now. */
  asking(key: string): boolean {
    return this.inFlight.has(key);
  }

  forget(key: string): void {
    this.answers.delete(key);
  }

  /** Peers the operator itself removed: Qdrant is asked again on the next pass. */
  without(key: string, info: QdrantClusterInfo): void {
    this.answers.set(key, { at: 0, info, readyPeers: this.answers.get(key)?.readyPeers ?? 0 });
  }

  async get(key: string, p: InferencePlatform, sts: any, desiredPeers: number, inPass = false): Promise<QdrantClusterInfo | undefined> {
    const readyPeers = sts?.status?.readyReplicas ?? 0;
    if (!sts || readyPeers === 0) {
      this.answers.delete(key);
      return undefined;
    }
    const cached = this.answers.get(key);
    const ttl = this.o.ttlMs;
    const age = cached ? Date.now() - cached.at : Infinity;
    // A peer came or went, or Qdrant looked unsettled (no leader, peers still
    // joining, shards not Active): ask again soon, not after the full TTL.
    const unsettled = !!cached?.info.reachable && !!qdrantUnsettled(cached.info, desiredPeers);
    // Unreachable keeps the platform from Ready: try again well before the TTL.
    const unreachable = !!cached && !cached.info.reachable;
    const stale =
      age >= ttl || cached?.readyPeers !== readyPeers || (unsettled && age >= Math.min(ttl, 2000)) || (unreachable && age >= Math.min(ttl, 5000));
    let inFlight = this.inFlight.get(key);
    if (stale && !inFlight) {
      inFlight = this.o
        .fetch(p)
        .then(answer => {
          const previous = this.answers.get(key)?.info;
          const info = stableClusterInfo(previous, answer);
          const changed = JSON.stringify(info) !== JSON.stringify(previous);
          this.answers.set(key, { at: Date.now(), info, readyPeers });
          // A pass waiting for this answer reads it itself; another pass for it would only repeat that one.
          if (changed && !this.awaited.has(key)) this.o.requeue?.(key);
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, inFlight);
    }
    if (!cached && inFlight && inPass) {
      let timer: NodeJS.Timeout | undefined;
      this.awaited.add(key);
      try {
        await Promise.race([inFlight, new Promise(r => (timer = setTimeout(r, FIRST_CLUSTER_INFO_WAIT_MS)))]);
      } finally {
        clearTimeout(timer);
        this.awaited.delete(key);
      }
      return this.answers.get(key)?.info;
    }
    return cached?.info;
  }
}
