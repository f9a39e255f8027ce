import {
  InferencePlatform,
  InferencePlatformRestore,
  InferencePlatformRestoreStatus,
  RESTORE_KIND,
} from '@cv-platform/inference-platform-api';
import { rfc3339Seconds } from '../kube/rfc3339Seconds';
import { KubeClient, resourcePath } from '../kube/KubeClient';
import { Logger } from '../logger';
import { EventRecorder } from '../events/EventRecorder';
import { Resources, SharedInformer } from '../runtime/SharedInformers';
import { FIELD_MANAGER, names } from '../reconcile/labels';
import { openBackupStore, PlatformLocks } from './BackupController';
import { BackupStore } from './BackupStore';
import { restoreBackup } from './restoreBackup';
import { BackupManifest, QdrantAccess } from './takeBackup';

/** @public */
export interface RestoreControllerOptions {
  client: KubeClient;
  restores: SharedInformer;
  platforms: SharedInformer;
  statefulSets: SharedInformer;
  recorder: EventRecorder;
  logger: Logger;
  qdrant: (p: InferencePlatform) => Promise<QdrantAccess>;
  locks: PlatformLocks;
  /** How long a restore waits (Pending) for its platform to exist and its Qdrant to be ready. */
  retryMs?: number;
  settleTimeoutMs?: number;
  now?: () => Date;
}

const keyOf = (r: { metadata: { namespace?: string; name?: string } }) => `${r.metadata.namespace}/${r.metadata.name}`;

/**
 * Runs InferencePlatformRestores: Pending until the platform, its backup
 * configuration and every Qdrant peer are there (and no backup of it is
 * running), then Running (status.message tells the step), then Succeeded
 * with the points per collection, or Failed with the reason. A restore
 * found Running without a worker (the operator restarted) runs again from
 * the start: every step converges.
 *
 * @public
 */
export class RestoreController {
  private running = false;
  private subscribed = false;
  private readonly inFlight = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();

  constructor(private readonly o: RestoreControllerOptions) {}

  private now() {
    return this.o.now?.() ?? new Date();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (!this.subscribed) {
      this.subscribed = true;
      this.o.restores.on((type, r) => {
        if (type !== 'DELETED') this.sync(r);
      });
    }
    for (const r of this.o.restores.list()) this.sync(r);
  }

  stop(): void {
    this.running = false;
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }

  private sync(r: InferencePlatformRestore): void {
    if (!this.running || r.metadata.deletionTimestamp) return;
    const phase = r.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const key = keyOf(r);
    if (this.inFlight.has(key) || this.retries.has(key)) return;
    this.inFlight.add(key);
    void this.run(r).finally(() => this.inFlight.delete(key));
  }

  private retryLater(r: InferencePlatformRestore) {
    const key = keyOf(r);
    const t = setTimeout(() => {
      this.retries.delete(key);
      const latest = this.o.restores.get(r.metadata.namespace!, r.metadata.name!);
      if (latest) this.sync(latest);
    }, this.o.retryMs ?? 5000);
    t.unref?.();
    this.retries.set(key, t);
  }

  private async run(r: InferencePlatformRestore): Promise<void> {
    const namespace = r.metadata.namespace!;
    let status: InferencePlatformRestoreStatus = { ...(r.status ?? {}) };
    const set = async (patch: Partial<InferencePlatformRestoreStatus>) => {
      status = { ...status, ...patch, observedGeneration: r.metadata.generation };
      await this.writeStatus(r, status);
    };
    const p: InferencePlatform | undefined = this.o.platforms.get(namespace, r.spec.platformName);
    const wait = async (message: string) => {
      if (status.phase !== 'Pending' || status.message !== message) await set({ phase: 'Pending', message });
      this.retryLater(r);
    };
    if (!p) {
      await wait(`waiting for InferencePlatform ${r.spec.platformName}`);
      return;
    }
    const backup = p.spec.qdrant.backup;
    if (!backup) {
      await this.fail(r, p, set, `InferencePlatform ${p.metadata.name} has no spec.backup: nothing says where its backups are`);
      return;
    }
    const platformKey = `${namespace}/${p.metadata.name}`;
    const sts = this.o.statefulSets.get(namespace, names.qdrant(p));
    const replicas: number = sts?.spec?.replicas ?? 0;
    const ready: number = sts?.status?.readyReplicas ?? 0;
    if (!sts || replicas === 0 || ready < replicas) {
      await wait(`waiting for Qdrant to be ready (${ready}/${replicas} peers)`);
      return;
    }
    if (!this.o.locks.tryLock(platformKey)) {
      await wait(`waiting for a backup or restore of ${p.metadata.name} to finish`);
      return;
    }
    let store: BackupStore | undefined;
    try {
      await set({ phase: 'Running', message: `reading backup ${r.spec.backupId}`, startTime: status.startTime ?? rfc3339Seconds(this.now()) });
      this.o.logger.info('Restoring Qdrant', { name: p.metadata.name, namespace, restore: r.metadata.name, backup: r.spec.backupId });
      store = await openBackupStore(this.o.client, namespace, backup.s3);
      const folder = `${store.platformFolder(namespace, p.metadata.name!)}${r.spec.backupId}/`;
      const manifest = await store.getJson<BackupManifest>(`${folder}manifest.json`);
      if (!manifest) throw new Error(`backup ${r.spec.backupId} not found: no ${store.location(`${folder}manifest.json`)}`);
      const q = await this.o.qdrant(p);
      const collections = await restoreBackup(q, store, { namespace, platform: p.metadata.name!, statefulSet: names.qdrant(p), replicas }, manifest, {
        collections: r.spec.collections,
        progress: message => set({ message }),
        settleTimeoutMs: this.o.settleTimeoutMs,
      });
      const summary = collections.map(c => `${c.name} (${c.points} points, ${c.pointsInBackup} in the backup)`).join(', ');
      await set({ phase: 'Succeeded', message: `restored ${summary}`, collections, completionTime: rfc3339Seconds(this.now()) });
      this.o.logger.info('Restored Qdrant', { name: p.metadata.name, namespace, restore: r.metadata.name, backup: r.spec.backupId });
      void this.o.recorder.record(p, 'Normal', 'RestoreSucceeded', `Restored backup ${r.spec.backupId} (${r.metadata.name}): ${summary}`);
      void this.o.recorder.record(r, 'Normal', 'Succeeded', `Restored ${summary}`);
    } catch (e) {
      await this.fail(r, p, set, e instanceof Error ? e.message : String(e));
    } finally {
      store?.close();
      this.o.locks.unlock(platformKey);
    }
  }

  private async fail(
    r: InferencePlatformRestore,
    p: InferencePlatform,
    set: (patch: Partial<InferencePlatformRestoreStatus>) => Promise<void>,
    message: string,
  ) {
    await set({ phase: 'Failed', message, completionTime: rfc3339Seconds(this.now()) });
    this.o.logger.warn('Restoring Qdrant failed', { name: p.metadata.name, namespace: p.metadata.namespace, restore: r.metadata.name, error: message });
    void this.o.recorder.record(p, 'Warning', 'RestoreFailed', `Restore ${r.metadata.name} of backup ${r.spec.backupId} failed: ${message}`);
    void this.o.recorder.record(r, 'Warning', 'Failed', message);
  }

  private async writeStatus(r: InferencePlatformRestore, status: InferencePlatformRestoreStatus) {
    try {
      await this.o.client.apply(
        resourcePath(Resources.inferencePlatformRestores, r.metadata.namespace, r.metadata.name, 'status'),
        { apiVersion: r.apiVersion, kind: RESTORE_KIND, metadata: { name: r.metadata.name, namespace: r.metadata.namespace }, status },
        FIELD_MANAGER,
      );
    } catch (e) {
      this.o.logger.warn('Could not write restore status', { name: r.metadata.name, namespace: r.metadata.namespace, error: String(e) });
    }
  }
}
