import { InferencePlatform, QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { Logger } from '../logger';
import { observeCluster, operationTarget, statefulSetPeers } from '../qdrant/observeCluster';
import { planRebalance, unevenPlacement } from '../qdrant/planRebalance';
import { QdrantPeerClient } from '../qdrant/QdrantPeerClient';
import { startShardOperations } from '../qdrant/startShardOperations';
import { qdrantUnsettled } from '../qdrant/qdrantUnsettled';
import type { PendingEvent } from '../events/PendingEvent';

/**
 * After a scale-up Qdrant leaves existing shards where they are: new peers
 * hold nothing until a collection is created. With spec.qdrant.rebalance the
 * operator moves shards onto them, one move per collection at a time, but
 * only while the cluster is otherwise settled (every peer Ready and in Raft,
 * nothing pending, every replica Active, no transfer), so it never competes
 * with a drain, an upgrade or a recovery.
 */
export class QdrantRebalance {
  constructor(
    private readonly o: {
      client: QdrantPeerClient;
      peerUrl: (p: InferencePlatform, pod: string) => string;
      logger: Logger;
    },
  ) {}

  /** Whether the cluster info shows a settled cluster with an uneven placement. */
  static needed(cluster: QdrantClusterInfo | undefined, peers: number): boolean {
    if (!cluster || qdrantUnsettled(cluster, peers)) return false;
    return unevenPlacement(cluster.collections!.map(c => c.perPeer), cluster.peers!.map(x => x.id));
  }

  /** Issues the next moves; returns how many were started. */
  async step(p: InferencePlatform, statefulSet: string, peers: number, apiKey: string | undefined, events: PendingEvent[]): Promise<number> {
    const view = await observeCluster(this.o.client, statefulSet, statefulSetPeers(statefulSet, peers, pod => this.o.peerUrl(p, pod)), apiKey);
    if (!view.leader || view.peers.some(x => !x.status)) return 0;
    const target = operationTarget(view)!;
    const { started, failed } = await startShardOperations(this.o.client, target.url, planRebalance(view, peers), apiKey, this.o.logger, {
      name: p.metadata.name,
      namespace: p.metadata.namespace,
    });
    for (const f of failed) events.push(['Warning', 'ShardOperationFailed', f]);
    if (started.length) events.push(['Normal', 'RebalancingShards', `Rebalancing Qdrant: ${started.map(o => o.description).join('; ')}`]);
    return started.length;
  }
}
