import { InferencePlatform, QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { Logger } from '../logger';
import { observeCluster, operationTarget, statefulSetPeers } from '../qdrant/observeCluster';
import { deadReplicaKey, deadReplicas, planRepair } from '../qdrant/planRepair';
import { QdrantPeerClient } from '../qdrant/QdrantPeerClient';
import { startShardOperations } from '../qdrant/startShardOperations';
import type { PendingEvent } from '../events/PendingEvent';

/**
 * Re-replicates shards whose replicas stay Dead: once a replica has been
 * Dead for `graceMs` (Qdrant recovers one itself when its peer comes back,
 * and a restarting peer's replicas are Dead for a moment), a healthy copy is
 * replicated onto a peer without one and the Dead replica dropped, so the
 * collection is back at its replication factor without waiting for a lost
 * peer. How long each replica has been Dead is remembered per platform.
 */
export class QdrantRepair {
  private readonly deadSince = new Map<string, Map<string, number>>();

  constructor(
    private readonly o: {
      client: QdrantPeerClient;
      peerUrl: (p: InferencePlatform, pod: string) => string;
      logger: Logger;
      graceMs: number;
      now?: () => number;
    },
  ) {}

  /** Whether the cluster info shows a Dead replica Qdrant could be helped with (a leader to take the operations). */
  static needed(cluster: QdrantClusterInfo | undefined): boolean {
    return !!cluster?.reachable && !!cluster.raftLeader && !!cluster.collections?.some(c => (c.replicas?.Dead ?? 0) > 0);
  }

  forget(key: string): void {
    this.deadSince.delete(key);
  }

  /** Issues the operations that are due; returns how many were started. */
  async step(key: string, p: InferencePlatform, statefulSet: string, peers: number, apiKey: string | undefined, events: PendingEvent[]): Promise<number> {
    const view = await observeCluster(this.o.client, statefulSet, statefulSetPeers(statefulSet, peers, pod => this.o.peerUrl(p, pod)), apiKey);
    if (!view.leader || view.errors.length) return 0;
    const now = this.o.now?.() ?? Date.now();
    const before = this.deadSince.get(key) ?? new Map<string, number>();
    const since = new Map(deadReplicas(view).map(d => [deadReplicaKey(d), before.get(deadReplicaKey(d)) ?? now]));
    this.deadSince.set(key, since);
    const ops = planRepair(view, peers, d => now - (since.get(deadReplicaKey(d)) ?? now) >= this.o.graceMs);
    const target = operationTarget(view, peers);
    if (!ops.length || !target?.status) return 0;
    const { started, failed } = await startShardOperations(this.o.client, target.url, ops, apiKey, this.o.logger, {
      name: p.metadata.name,
      namespace: p.metadata.namespace,
    });
    for (const op of started) events.push(['Normal', 'RepairingShards', `Repairing Qdrant: ${op.description}`]);
    for (const f of failed) events.push(['Warning', 'ShardOperationFailed', f]);
    return started.length;
  }
}
