import { ConditionType, InferencePlatform } from '@cv-platform/inference-platform-api';
import { resourcePath } from '../kube/KubeClient';
import { podOfPeerUri } from '../qdrant/observeCluster';
import { Resources } from '../runtime/SharedInformers';
import { isSubset } from './isSubset';
import { FIELD_MANAGER } from './labels';
import { LastWrites } from './LastWrites';
import type { ReconcilerOptions } from './ReconcilerOptions';

const statusId = (p: InferencePlatform) => `status/${p.metadata.namespace}/${p.metadata.name}`;

/**
 * A change someone waits for: phase, observed generation, or a condition's
 * status or reason. Counts, messages and cluster details alone are not.
 *
 * @public
 */
export function significantChange(before: any, after: any): boolean {
  if (!before) return true;
  if (before.phase !== after.phase || before.observedGeneration !== after.observedGeneration) return true;
  const was = new Map<string, any>((before.conditions ?? []).map((c: any) => [c.type, c]));
  const now: any[] = after.conditions ?? [];
  if (now.length !== was.size || now.some(c => !was.has(c.type))) return true;
  // A part becoming True while the phase stays is progress that the next
  // change (often the phase itself, a moment later) can carry; a part
  // falling from True, or waiting for something else, is news.
  return now.some(c => {
    const old = was.get(c.type);
    if (c.status === 'True') return false;
    return old.status !== c.status || old.reason !== c.reason;
  });
}

/** The status without what is written only along with something else (status.qdrant.version). */
function withoutCarried(status: any): any {
  if (!status?.qdrant?.version) return status;
  const { version: _version, ...qdrant } = status.qdrant;
  const { qdrant: _qdrant, ...rest } = status;
  return Object.keys(qdrant).length ? { ...rest, qdrant } : rest;
}

/**
 * The part of a written status this reconciler owns: status.backup and the
 * BackupSucceeded condition belong to the backup controller (another field
 * manager) and are neither compared nor written here.
 *
 * @public
 */
export function reconcilerOwned(status: any): any {
  if (!status) return status;
  const { backup: _backup, ...rest } = status;
  if (!rest.conditions?.some((c: any) => c.type === ConditionType.BackupSucceeded)) return rest;
  return { ...rest, conditions: rest.conditions.filter((c: any) => c.type !== ConditionType.BackupSucceeded) };
}

/** Same content, whatever the key order the API server returned. */
function sameStatus(a: unknown, b: unknown) {
  return isSubset(a ?? {}, b ?? {}) && isSubset(b ?? {}, a ?? {});
}

/**
 * Writes a platform's status once per pass, and only when it changed; raises
 * the Events of a new phase and of a new Qdrant leader.
 */
export class StatusWriter {
  /** When each platform's status was last written (for coalescing). */
  private readonly lastStatusWrite = new Map<string, number>();

  constructor(
    private readonly o: Pick<ReconcilerOptions, 'client' | 'logger' | 'metrics' | 'recorder' | 'statusCoalesceMs'>,
    private readonly lastWrites: LastWrites<unknown>,
  ) {}

  /** The platform's watch event: the cache shows its status now. */
  observed(p: InferencePlatform): void {
    this.lastWrites.observed(statusId(p));
  }

  forget(key: string): void {
    this.lastStatusWrite.delete(key);
  }

  /**
   * Writes the status if it changed. A change that only moves counts or
   * messages is held back while the platform's last write is younger than
   * statusCoalesceMs, so a rollout's many small steps cost one write per
   * interval; the returned delay is when to look again.
   */
  async write(p: InferencePlatform, status: any): Promise<number | undefined> {
    const id = statusId(p);
    const current = this.lastWrites.pending(id, p.metadata.resourceVersion) ?? reconcilerOwned(p.status);
    if (sameStatus(status, current)) return undefined;
    const significant = significantChange(current, status);
    // On the way somewhere (Pending, Loading), facts like the Qdrant version
    // the pods run ride on the write that ends the way, the next phase. In a
    // phase that may last (Ready, Degraded, Failed) nothing else is coming:
    // they are written like counts.
    const onTheWay = status.phase === 'Pending' || status.phase === 'Loading';
    if (!significant && onTheWay && sameStatus(withoutCarried(status), withoutCarried(current))) return undefined;
    const prevPhase = (current as any)?.phase;
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const coalesceMs = this.o.statusCoalesceMs ?? 5000;
    const since = Date.now() - (this.lastStatusWrite.get(key) ?? 0);
    if (!significant && since < coalesceMs) return coalesceMs - since;
    this.lastStatusWrite.set(key, Date.now());
    if (this.lastStatusWrite.size > 100_000) this.lastStatusWrite.delete(this.lastStatusWrite.keys().next().value!);
    const written = await this.o.client.apply(
      resourcePath(Resources.inferencePlatforms, p.metadata.namespace, p.metadata.name, 'status'),
      { apiVersion: p.apiVersion, kind: p.kind, metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, status },
      FIELD_MANAGER,
    );
    this.lastWrites.remember(id, p.metadata.resourceVersion, written?.metadata?.resourceVersion, status);
    this.o.metrics.writes.inc({ kind: p.kind, verb: 'status' });
    const leaderBefore: string | undefined = (current as any)?.qdrantCluster?.raftLeader;
    const leaderNow: string | undefined = status.qdrantCluster?.raftLeader;
    if (leaderBefore && leaderNow && leaderBefore !== leaderNow) {
      const peer = (peerId: string) => {
        const uri =
          status.qdrantCluster.peers?.find((x: any) => x.id === peerId)?.uri ??
          (current as any)?.qdrantCluster?.peers?.find((x: any) => x.id === peerId)?.uri;
        const pod = podOfPeerUri(uri);
        return `peer ${peerId}${pod ? ` (${pod})` : ''}`;
      };
      const message = `Qdrant Raft leader changed from ${peer(leaderBefore)} to ${peer(leaderNow)} in term ${status.qdrantCluster.raftTerm}`;
      this.o.logger.info('Qdrant leader changed', { name: p.metadata.name, namespace: p.metadata.namespace, from: leaderBefore, to: leaderNow });
      void this.o.recorder.record(p, 'Normal', 'QdrantLeaderChanged', message);
    }
    if (prevPhase !== status.phase) {
      this.o.logger.info(`Platform phase ${prevPhase ?? '(none)'} -> ${status.phase}`, {
        name: p.metadata.name,
        namespace: p.metadata.namespace,
      });
      // Events a user acts on or waits for: Ready, Failed, Degraded. The way
      // there (Pending, Loading) is in the status and the log, not in Events.
      if (status.phase === 'Ready' || status.phase === 'Failed' || status.phase === 'Degraded') {
        void this.o.recorder.record(
          p,
          status.phase === 'Ready' ? 'Normal' : 'Warning',
          status.phase,
          status.message ?? status.phase,
        );
      }
    }
    return undefined;
  }
}
