import { InferencePlatform, QdrantScaleDownStatus } from '@cv-platform/inference-platform-api';
import { Logger } from '../logger';
import { observeCluster, operationTarget, statefulSetPeers } from '../qdrant/observeCluster';
import { planScaleDown } from '../qdrant/planScaleDown';
import { QdrantError, QdrantPeerClient } from '../qdrant/QdrantPeerClient';
import { startShardOperations } from '../qdrant/startShardOperations';
import type { PendingEvent } from '../events/PendingEvent';

export interface ScaleDownStep {
  /** The StatefulSet's replicas for this pass: lowered only past peers Raft no longer has. */
  replicas: number;
  status: QdrantScaleDownStatus;
  /**
   * Raft's members once this step removed a peer. Cluster info asked for
   * before the removal still lists it: a pass that trusted that answer would
   * call the peer unbacked (Degraded) or remove it again (a 404).
   */
  members?: string[];
}

/**
 * Takes the Qdrant tier down to fewer peers without losing a shard: each
 * pass looks at the cluster afresh, issues the next drain step (moves and
 * drops, a peer removal) and lets the StatefulSet shrink only past peers that
 * Raft no longer lists. Everything it knows comes from Qdrant on each pass,
 * so an operator restarted mid-drain picks up where Qdrant is, and a transfer
 * in flight is never issued twice.
 */
export class QdrantScaleDown {
  constructor(
    private readonly o: {
      client: QdrantPeerClient;
      /** Where a peer's REST API answers, from its pod name. */
      peerUrl: (p: InferencePlatform, pod: string) => string;
      logger: Logger;
    },
  ) {}

  /**
   * The pass's part of a scale-down, when spec.qdrant.replicas is below the
   * live StatefulSet's: the next drain step, or Blocked when Qdrant cannot be
   * asked (the StatefulSet then keeps every pod). Undefined: no scale-down.
   */
  async plan(
    p: InferencePlatform,
    statefulSet: string,
    live: number | undefined,
    desired: number,
    apiKey: () => Promise<string | undefined>,
    events: PendingEvent[],
  ): Promise<ScaleDownStep | undefined> {
    if (live === undefined || desired >= live) return undefined;
    try {
      return await this.step(p, statefulSet, live, desired, await apiKey(), events);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return {
        replicas: live,
        status: { fromReplicas: live, toReplicas: desired, step: 'Blocked', reason: 'QdrantUnreachable', message, leavingPeers: [], transfersInFlight: 0 },
      };
    }
  }

  async step(
    p: InferencePlatform,
    statefulSet: string,
    live: number,
    desired: number,
    apiKey: string | undefined,
    events: PendingEvent[],
  ): Promise<ScaleDownStep> {
    const log = { name: p.metadata.name, namespace: p.metadata.namespace };
    const pods = statefulSetPeers(statefulSet, live, pod => this.o.peerUrl(p, pod));
    const view = await observeCluster(this.o.client, statefulSet, pods, apiKey);
    const plan = planScaleDown(view, desired);
    const leavingMembers = view.members.filter(m => m.ordinal !== undefined && m.ordinal >= desired);
    const base = {
      fromReplicas: live,
      toReplicas: desired,
      leavingPeers: leavingMembers.map(m => `${statefulSet}-${m.ordinal} (peer ${m.id})`),
      transfersInFlight: view.collections.reduce((n, c) => n + c.layout.transfers.length, 0),
    };
    // Keep every pod whose peer Raft still lists; past those, the StatefulSet may shrink.
    const highestMember = Math.max(-1, ...leavingMembers.map(m => m.ordinal!));
    const draining = Math.max(desired, highestMember + 1);
    const leader = operationTarget(view, desired);

    switch (plan.kind) {
      case 'blocked':
        return { replicas: live, status: { ...base, step: 'Blocked', reason: plan.reason, message: plan.message } };
      case 'wait':
        return { replicas: draining, status: { ...base, step: 'Draining', message: plan.message } };
      case 'done':
        return { replicas: desired, status: { ...base, step: 'Done', message: `every leaving peer has left the Raft cluster` } };
      case 'drain': {
        const { started, failed: failures } = await startShardOperations(this.o.client, leader!.url, plan.operations, apiKey, this.o.logger, log);
        if (started.length) {
          events.push(['Normal', 'DrainingQdrantPeer', `Draining ${statefulSet}-${plan.peer.ordinal} (peer ${plan.peer.id}): ${started.map(o => o.description).join('; ')}`]);
        }
        if (failures.length) events.push(['Warning', 'ShardOperationFailed', failures.join('; ')]);
        return {
          replicas: draining,
          status: {
            ...base,
            step: 'Draining',
            message: `draining ${statefulSet}-${plan.peer.ordinal}: ${plan.operations.length} shard operation${plan.operations.length === 1 ? '' : 's'} issued${failures.length ? `, ${failures.length} failed (${failures[0]})` : ''}`,
          },
        };
      }
      case 'remove': {
        try {
          await this.o.client.removePeer(leader!.url, plan.peer.id, apiKey);
        } catch (e) {
          // 404: already removed (an answer older than the removal), which is the plan, not a failure.
          if (!(e instanceof QdrantError && e.status === 404)) {
            const message = `removing peer ${plan.peer.id} from Raft failed: ${e instanceof Error ? e.message : e}`;
            events.push(['Warning', 'PeerRemovalFailed', message]);
            return { replicas: draining, status: { ...base, step: 'RemovingPeer', message } };
          }
        }
        this.o.logger.info('Removed Qdrant peer from the cluster', { ...log, peer: plan.peer.id, pod: `${statefulSet}-${plan.peer.ordinal}` });
        events.push(['Normal', 'RemovedQdrantPeer', `Removed peer ${plan.peer.id} (${statefulSet}-${plan.peer.ordinal}) from the Qdrant cluster; its pod can go`]);
        const remaining = leavingMembers.filter(m => m.id !== plan.peer.id);
        return {
          replicas: Math.max(desired, 1 + Math.max(-1, ...remaining.map(m => m.ordinal!))),
          members: view.members.map(m => m.id).filter(id => id !== plan.peer.id),
          status: { ...base, leavingPeers: base.leavingPeers.filter(x => !x.endsWith(`(peer ${plan.peer.id})`)), step: 'RemovingPeer', message: `removed peer ${plan.peer.id} from Raft` },
        };
      }
      default:
        return { replicas: live, status: { ...base, step: 'Blocked', message: 'unknown plan' } };
    }
  }
}
