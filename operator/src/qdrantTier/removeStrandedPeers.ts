import type { InferencePlatform, QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import type { PendingEvent } from '../events/PendingEvent';
import type { Logger } from '../logger';
import { podOfPeerUri } from '../qdrant/observeCluster';
import { QdrantError, QdrantPeerClient } from '../qdrant/QdrantPeerClient';
import { strandedPeers } from '../qdrant/strandedPeers';
import { names } from '../reconcile/labels';

/**
 * Removes from Raft the empty peers of pods past the StatefulSet (see
 * strandedPeers) and returns the cluster info without them. The info may be
 * older than a scale-down that removed a peer itself: a 404 means the peer
 * is gone already, which is what was wanted, so it is no failure.
 */
export async function removeStrandedPeers(
  o: { client: QdrantPeerClient; peerUrl: (p: InferencePlatform, pod: string) => string; logger: Logger; apiKey: () => Promise<string | undefined> },
  p: InferencePlatform,
  clusterInfo: QdrantClusterInfo | undefined,
  replicas: number,
  events: PendingEvent[],
): Promise<QdrantClusterInfo | undefined> {
  const stranded = strandedPeers(clusterInfo, names.qdrant(p), replicas);
  if (!stranded.length || !clusterInfo) return clusterInfo;
  const removed = new Set<string>();
  try {
    const apiKey = await o.apiKey();
    // Through peer 0, which always stays (as drains go through a staying peer):
    // a removal is a Raft proposal any member forwards to the leader.
    const url = o.peerUrl(p, `${names.qdrant(p)}-0`);
    for (const peer of stranded) {
      const pod = podOfPeerUri(peer.uri);
      try {
        await o.client.removePeer(url, peer.id, apiKey);
      } catch (e) {
        if (!(e instanceof QdrantError && e.status === 404)) throw e;
        removed.add(peer.id);
        continue;
      }
      removed.add(peer.id);
      o.logger.info('Removed stranded Qdrant peer from the cluster', { name: p.metadata.name, namespace: p.metadata.namespace, peer: peer.id, pod });
      events.push(['Normal', 'RemovedQdrantPeer', `Removed peer ${peer.id} (${pod}) from the Qdrant cluster: its pod is past the StatefulSet's ${replicas} and it held no shard`]);
    }
  } catch (e) {
    events.push(['Warning', 'PeerRemovalFailed', `removing a Qdrant peer no pod backs failed: ${e instanceof Error ? e.message : e}`]);
  }
  if (!removed.size) return clusterInfo;
  return { ...clusterInfo, peers: clusterInfo.peers?.filter(x => !removed.has(x.id)) };
}
