import type { DefaultedSpec, InferencePlatform, QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import { QdrantAdminClient } from '../qdrant/QdrantAdminClient';
import { directQdrantRequest, QdrantPeerClient } from '../qdrant/QdrantPeerClient';
import { qdrantUnsettled } from '../qdrant/qdrantUnsettled';
import { readQdrantApiKey } from '../qdrant/readQdrantApiKey';
import { LABEL_COMPONENT, names } from '../reconcile/labels';
import { qdrantClientService, qdrantHeadlessService, qdrantPeerUrl, qdrantPodDisruptionBudget, qdrantServiceUrl, qdrantStatefulSet } from '../reconcile/qdrantChildren';
import { qdrantUpgradePartition, UpgradeStep } from '../reconcile/qdrantUpgradePartition';
import { PVCS_BY_PLATFORM, ReconcilerOptions } from '../reconcile/ReconcilerOptions';
import { qdrantPodMonitor } from '../reconcile/scalingChildren';
import { Recreation, statefulSetRecreation } from '../reconcile/statefulSetRecreation';
import type { TierPlan } from '../reconcile/TierPlan';
import { Resources } from '../runtime/SharedInformers';
import type { ObservedChildren } from '../status/ObservedChildren';
import { volumeWaitReportableInMs } from '../status/podProblems';
import { ClusterInfoCache } from './ClusterInfoCache';
import { QdrantRebalance } from './QdrantRebalance';
import { QdrantRepair } from './QdrantRepair';
import { QdrantScaleDown, ScaleDownStep } from './QdrantScaleDown';
import { recreateStatefulSet } from './recreateStatefulSet';
import { removeStrandedPeers } from './removeStrandedPeers';

/** What the Qdrant tier wants from a pass, and what it saw for the status and the inference tier. */
export interface QdrantPlan extends TierPlan {
  /** Every peer the spec asks for is ready: the inference servers may start. */
  ready: boolean;
  clusterInfo?: QdrantClusterInfo;
  /** Run before the applies: the StatefulSet's immutable fields changed. */
  recreate?: () => Promise<void>;
  /**
   * After a pass that wrote everything: while Qdrant itself looks unsettled,
   * when to pass again; 'settled' when Qdrant is worth asking again only
   * after the TTL; undefined when there is no Qdrant to ask.
   */
  afterPass: () => number | 'settled' | undefined;
  /** The Qdrant part of the status input, read from the caches after the applies. */
  observed: () => Pick<ObservedChildren, 'statefulSet' | 'qdrantPods' | 'qdrantCluster' | 'qdrantScaleDown' | 'qdrantUpgrade' | 'qdrantVolumes'>;
}

/**
 * The Qdrant tier of a platform: its Services, StatefulSet, disruption budget
 * and monitor, and what Qdrant itself must do before the StatefulSet may
 * change (drains on a scale-down, stranded peers, the ordered upgrade, a
 * rebalance after a scale-up, repair of Dead replicas).
 */
export class QdrantTier {
  readonly clusterInfo: ClusterInfoCache;
  private readonly peers: QdrantPeerClient;
  private readonly peerUrl: (p: InferencePlatform, pod: string) => string;
  private readonly scaleDown: QdrantScaleDown;
  private readonly rebalance: QdrantRebalance;
  private readonly repair: QdrantRepair;

  constructor(private readonly o: ReconcilerOptions) {
    const admin = o.qdrant ?? new QdrantAdminClient();
    this.clusterInfo = new ClusterInfoCache({
      fetch: async p => {
        let apiKey: string | undefined;
        try {
          apiKey = await this.apiKey(p);
        } catch (e) {
          return { reachable: false, message: e instanceof Error ? e.message : String(e) };
        }
        return admin.clusterInfo(o.qdrantUrl?.(p) ?? qdrantServiceUrl(p), apiKey);
      },
      ttlMs: o.clusterInfoTtlMs ?? 60_000,
      requeue: o.requeue,
    });
    this.peers = o.qdrantPeers ?? new QdrantPeerClient(directQdrantRequest);
    this.peerUrl = o.qdrantPeerUrl ?? qdrantPeerUrl;
    const peerDeps = { client: this.peers, peerUrl: this.peerUrl, logger: o.logger };
    this.scaleDown = new QdrantScaleDown(peerDeps);
    this.rebalance = new QdrantRebalance(peerDeps);
    this.repair = new QdrantRepair({ ...peerDeps, graceMs: o.deadReplicaGraceMs ?? 120_000 });
  }

  forget(key: string): void {
    this.clusterInfo.forget(key);
    this.repair.forget(key);
  }

  async plan(key: string, p: InferencePlatform, spec: DefaultedSpec, pods: any[]): Promise<QdrantPlan> {
    const { caches, logger } = this.o;
    const namespace = p.metadata.namespace!;
    const log = { name: p.metadata.name, namespace };
    const statefulSet = names.qdrant(p);
    const apiKey = () => this.apiKey(p);
    const sts = caches.statefulSets.get(namespace, statefulSet);
    const ready =
      !!sts && (sts.status?.observedGeneration ?? 0) >= (sts.metadata.generation ?? 0) && (sts.status?.readyReplicas ?? 0) >= spec.qdrant.replicas;
    const desiredSts = qdrantStatefulSet(p, spec);
    // A StatefulSet on its way out (orphan deletion runs its finalizer) is
    // left alone; its removal from the cache triggers the pass that re-creates it.
    const leaving = !!sts?.metadata.deletionTimestamp;
    const recreation: Recreation | undefined = leaving ? undefined : statefulSetRecreation(desiredSts, sts);
    const steady = !!sts && !leaving && !recreation;
    const events: TierPlan['events'] = [];
    // Fewer peers: drain them in Qdrant first; the StatefulSet shrinks only past peers that have left Raft.
    const scaleDown: ScaleDownStep | undefined = steady
      ? await this.scaleDown.plan(p, statefulSet, sts.spec?.replicas, spec.qdrant.replicas, apiKey, events)
      : undefined;
    if (scaleDown) desiredSts.spec.replicas = scaleDown.replicas;
    let clusterInfo = await this.clusterInfo.get(key, p, sts, spec.qdrant.replicas, true);
    const members = scaleDown?.members;
    if (members && clusterInfo?.peers?.some(x => !members.includes(x.id))) {
      clusterInfo = { ...clusterInfo, peers: clusterInfo.peers.filter(x => members.includes(x.id)) };
      this.clusterInfo.without(key, clusterInfo);
    }
    if (!scaleDown && steady) {
      const deps = { client: this.peers, peerUrl: this.peerUrl, logger, apiKey };
      const info = await removeStrandedPeers(deps, p, clusterInfo, sts.spec?.replicas ?? spec.qdrant.replicas, events);
      if (info && info !== clusterInfo) this.clusterInfo.without(key, info);
      clusterInfo = info;
    }
    const qdrantPods = pods.filter(o => o.metadata.labels?.[LABEL_COMPONENT] === 'qdrant');
    // Version (or any template) changes restart one peer at a time, each once Qdrant has settled.
    let upgrade: UpgradeStep | undefined;
    if (steady) {
      upgrade = qdrantUpgradePartition(desiredSts, sts, qdrantPods, clusterInfo, !!spec.qdrant.allowDowntime, this.clusterInfo.answeredAt(key) ?? 0);
      desiredSts.spec.updateStrategy.rollingUpdate.partition = upgrade.partition;
    }
    // New peers after a scale-up hold nothing: move shards onto them once all is settled.
    const settled =
      !!sts && sts.spec?.replicas === spec.qdrant.replicas && sts.status?.readyReplicas === spec.qdrant.replicas &&
      sts.status?.updateRevision === sts.status?.currentRevision;
    const rebalancing = !!spec.qdrant.rebalance && !scaleDown && settled && QdrantRebalance.needed(clusterInfo, spec.qdrant.replicas);
    if (rebalancing) {
      try {
        await this.rebalance.step(p, statefulSet, spec.qdrant.replicas, await apiKey(), events);
      } catch (e) {
        logger.warn('Rebalancing Qdrant failed', { ...log, error: String(e) });
      }
    }
    // Replicas that stay Dead are replaced from a healthy copy (not while
    // peers are being restarted or removed on purpose).
    const rolling = !!sts && sts.status?.updateRevision !== sts.status?.currentRevision;
    if (!scaleDown && steady && !rolling && QdrantRepair.needed(clusterInfo)) {
      try {
        await this.repair.step(key, p, statefulSet, sts.spec?.replicas ?? spec.qdrant.replicas, await apiKey(), events);
      } catch (e) {
        logger.warn('Repairing Qdrant failed', { ...log, error: String(e) });
      }
    }

    const children: TierPlan['children'] = [
      { obj: qdrantHeadlessService(p), ref: Resources.services, cache: caches.services },
      { obj: qdrantClientService(p), ref: Resources.services, cache: caches.services },
    ];
    // A StatefulSet being re-created is applied again once its deletion shows in the cache.
    if (!recreation && !leaving) children.push({ obj: desiredSts, ref: Resources.statefulSets, cache: caches.statefulSets });
    const pdb = qdrantPodDisruptionBudget(p, spec);
    if (pdb) children.push({ obj: pdb, ref: Resources.pdbs, cache: caches.pdbs });
    if (caches.podMonitors) children.push({ obj: qdrantPodMonitor(p), ref: Resources.podMonitors, cache: caches.podMonitors });
    const draining = !!scaleDown && scaleDown.status.step !== 'Done';
    const nowMs = this.o.now?.().getTime() ?? Date.now();
    return {
      children,
      removals: pdb ? [] : [{ cache: caches.pdbs, ref: Resources.pdbs, name: statefulSet }],
      events,
      // Qdrant's progress raises no Kubernetes event: look again soon. A peer
      // waiting for its volumes is said only once it lasts: nothing else brings that pass.
      waitMs: Math.min(
        draining || upgrade?.waiting || rebalancing ? this.o.drainPollMs ?? 2000 : Infinity,
        volumeWaitReportableInMs(qdrantPods, nowMs) ?? Infinity,
      ),
      ready,
      clusterInfo,
      recreate: recreation && (() => recreateStatefulSet({ ...this.o, pvcs: caches.pvcs }, p, sts, recreation, events)),
      afterPass: () => {
        if (!clusterInfo && !sts?.status?.readyReplicas) return undefined;
        const unsettled = clusterInfo && (!clusterInfo.reachable || qdrantUnsettled(clusterInfo, spec.qdrant.replicas));
        return unsettled ? Math.min(this.o.clusterInfoTtlMs ?? 60_000, 2000) : 'settled';
      },
      observed: () => ({
        statefulSet: caches.statefulSets.get(namespace, statefulSet),
        qdrantPods,
        qdrantCluster: clusterInfo,
        qdrantScaleDown: draining ? scaleDown!.status : undefined,
        qdrantUpgrade: upgrade,
        // Indexed by platform: a pass reads its own volumes, not every platform's.
        qdrantVolumes: caches.pvcs.byIndex(PVCS_BY_PLATFORM, key).filter(o => o.metadata.name.startsWith(`storage-${statefulSet}-`) && /-\d+$/.test(o.metadata.name)),
      }),
    };
  }

  private apiKey(p: InferencePlatform): Promise<string | undefined> {
    return readQdrantApiKey(this.o.client, p);
  }
}
