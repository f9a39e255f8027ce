import {
  BACKUP_REQUESTED_ANNOTATION,
  BackupRecord,
  BackupS3Target,
  BackupStatus,
  Condition,
  ConditionType,
  InferencePlatform,
} from '@cv-platform/inference-platform-api';
import { readSecretData } from '../kube/readSecretData';
import { rfc3339Seconds } from '../kube/rfc3339Seconds';
import { KubeClient, resourcePath } from '../kube/KubeClient';
import { Logger } from '../logger';
import { EventRecorder } from '../events/EventRecorder';
import { Resources, SharedInformer } from '../runtime/SharedInformers';
import { names } from '../reconcile/labels';
import { backupId, nextScheduleTime, parseRetentionAge } from './backupSchedule';
import { BackupStore, S3Credentials } from './BackupStore';
import { pruneBackups, QdrantAccess, takeBackup } from './takeBackup';

/** Owns status.backup and the BackupSucceeded condition; the reconciler never writes them. */
export const BACKUP_FIELD_MANAGER = 'inference-platform-operator-backup';
const HISTORY = 10;
/** setTimeout cannot wait longer than ~24.8 days; look again at least hourly. */
const MAX_TIMER_MS = 3_600_000;

/** @public */
export interface BackupControllerOptions {
  client: KubeClient;
  platforms: SharedInformer;
  statefulSets: SharedInformer;
  recorder: EventRecorder;
  logger: Logger;
  /** Qdrant of one platform: its peers, how to reach them, its API key. */
  qdrant: (p: InferencePlatform) => Promise<QdrantAccess>;
  /** Backups (and restores) taken at once across all platforms. */
  concurrency?: number;
  now?: () => Date;
}

/**
 * Per-platform mutual exclusion of backups and restores (a restore must not race a snapshot).
 *
 * @public
 */
export class PlatformLocks {
  private readonly held = new Set<string>();
  tryLock(key: string): boolean {
    if (this.held.has(key)) return false;
    this.held.add(key);
    return true;
  }
  unlock(key: string) {
    this.held.delete(key);
  }
  isLocked(key: string) {
    return this.held.has(key);
  }
}

/** The S3 store of a backup spec, with the keys from its Secret when it names one. */
export async function openBackupStore(client: KubeClient, namespace: string, s3: BackupS3Target): Promise<BackupStore> {
  let credentials: S3Credentials | undefined;
  const ref = s3.credentialsSecretRef;
  if (ref) {
    const read = await readSecretData(client, namespace, ref.name, 'S3 credentials');
    const accessKeyId = read(ref.accessKeyIdKey ?? 'AWS_ACCESS_KEY_ID');
    const secretAccessKey = read(ref.secretAccessKeyKey ?? 'AWS_SECRET_ACCESS_KEY');
    if (!accessKeyId || !secretAccessKey) {
      throw new Error(`Secret ${ref.name} lacks ${ref.accessKeyIdKey ?? 'AWS_ACCESS_KEY_ID'} or ${ref.secretAccessKeyKey ?? 'AWS_SECRET_ACCESS_KEY'}`);
    }
    credentials = { accessKeyId, secretAccessKey };
  }
  return new BackupStore(s3, credentials);
}

const keyOf = (p: InferencePlatform) => `${p.metadata.namespace}/${p.metadata.name}`;

/**
 * Takes the backups spec.backup (spec.qdrant.backup in the operator's layout) asks for, inside the operator rather
 * than in a CronJob it would own: snapshots are per peer and the operator
 * already reaches every peer (directly or through the API server's proxy)
 * and knows Raft's state, results go straight into status, and there is no
 * second image to ship with Qdrant and S3 credentials mounted. Runs on the
 * leader only. A schedule missed while no operator ran is made up once, as
 * a CronJob does; "back up now" is the backup-requested-at annotation.
 *
 * @public
 */
export class BackupController {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private running = false;
  /** What this controller last wrote per platform (the cache may not show it yet). */
  private readonly written = new Map<string, { backup: BackupStatus; condition?: Condition }>();
  private subscribed = false;

  constructor(
    private readonly o: BackupControllerOptions,
    readonly locks = new PlatformLocks(),
  ) {}

  private now() {
    return this.o.now?.() ?? new Date();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    if (!this.subscribed) {
      this.subscribed = true;
      // Informers cannot unsubscribe; a stopped controller ignores what it hears.
      this.o.platforms.on((type, p) => {
        if (type === 'DELETED') this.forget(keyOf(p));
        else this.sync(p);
      });
    }
    for (const p of this.o.platforms.list()) this.sync(p);
  }

  stop(): void {
    this.running = false;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    // Another instance may lead meanwhile: read status afresh when leading again.
    this.written.clear();
  }

  private forget(key: string) {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.written.delete(key);
  }

  /** Decides, for one platform, whether a backup is due now or when the next one is. */
  sync(p: InferencePlatform): void {
    if (!this.running) return;
    const key = keyOf(p);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    const spec = p.spec.qdrant.backup;
    if (!spec || p.metadata.deletionTimestamp) return;
    if (this.locks.isLocked(key)) return;
    const status = this.current(p).backup;
    const requested = p.metadata.annotations?.[BACKUP_REQUESTED_ANNOTATION];
    if (requested && requested !== status.lastRequestHandled) {
      void this.run(p, 'Manual', requested);
      return;
    }
    const now = this.now();
    let next: Date;
    try {
      next = nextScheduleTime(spec.schedule, new Date(status.lastScheduleTime ?? p.metadata.creationTimestamp ?? now.toISOString()));
    } catch (e) {
      void this.writeInvalidSchedule(p, e instanceof Error ? e.message : String(e));
      return;
    }
    if (!spec.suspend && next.getTime() <= now.getTime()) {
      void this.run(p, 'Scheduled', undefined, next);
      return;
    }
    const shown = spec.suspend ? undefined : rfc3339Seconds(next);
    if (status.nextScheduleTime !== shown) void this.write(p, { ...status, nextScheduleTime: shown });
    if (spec.suspend) return;
    const timer = setTimeout(() => {
      const latest = this.o.platforms.get(p.metadata.namespace!, p.metadata.name!);
      if (latest) this.sync(latest);
    }, Math.min(next.getTime() - now.getTime(), MAX_TIMER_MS));
    timer.unref?.();
    this.timers.set(key, timer);
  }

  /** The status this controller owns, as last written (or as the cache has it). */
  private current(p: InferencePlatform): { backup: BackupStatus; condition?: Condition } {
    const mine = this.written.get(keyOf(p));
    if (mine) return mine;
    return {
      backup: p.status?.backup ?? {},
      condition: p.status?.conditions?.find(c => c.type === ConditionType.BackupSucceeded),
    };
  }

  private async slot(): Promise<void> {
    if (this.active < (this.o.concurrency ?? 2)) {
      this.active++;
      return;
    }
    await new Promise<void>(resolve => this.waiting.push(resolve));
  }

  private release() {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** Takes one backup now, records it, prunes by retention. Never throws. */
  async run(p: InferencePlatform, trigger: 'Scheduled' | 'Manual', requested?: string, scheduledAt?: Date): Promise<BackupRecord | undefined> {
    const key = keyOf(p);
    if (!this.locks.tryLock(key)) return undefined;
    const { namespace, name } = p.metadata as { namespace: string; name: string };
    const spec = p.spec.qdrant.backup!;
    const start = this.now();
    const id = backupId(start);
    let store: BackupStore | undefined;
    let record: BackupRecord;
    try {
      const before = this.current(p).backup;
      const running: BackupStatus = {
        ...before,
        running: { id, trigger, startTime: rfc3339Seconds(start) },
        // As a CronJob's: the time the run was due, from which the next one counts.
        ...(trigger === 'Scheduled' ? { lastScheduleTime: rfc3339Seconds(scheduledAt ?? start) } : {}),
        ...(requested ? { lastRequestHandled: requested } : {}),
      };
      await this.write(p, running);
      await this.slot();
      try {
        this.o.logger.info('Backing up Qdrant', { name, namespace, backup: id, trigger });
        const sts = this.o.statefulSets.get(namespace, names.qdrant(p));
        const replicas: number = sts?.spec?.replicas ?? 0;
        const ready: number = sts?.status?.readyReplicas ?? 0;
        if (!sts || ready < replicas || replicas === 0) {
          throw new Error(`Qdrant is not ready (${ready}/${replicas} peers ready)`);
        }
        store = await openBackupStore(this.o.client, namespace, spec.s3);
        const q = await this.o.qdrant(p);
        record = await takeBackup(q, store, { namespace, platform: name, statefulSet: names.qdrant(p), replicas }, id, trigger, () => this.now());
        const maxAgeMs = spec.retention?.maxAge ? parseRetentionAge(spec.retention.maxAge) : undefined;
        try {
          const pruned = await pruneBackups(store, store.platformFolder(namespace, name), { count: spec.retention?.count, maxAgeMs }, id, this.now());
          if (pruned.length) {
            this.o.logger.info('Pruned Qdrant backups', { name, namespace, backups: pruned });
            record.message = `${record.message}; pruned ${pruned.join(', ')}`;
          }
        } catch (e) {
          record.message = `${record.message}; pruning failed: ${e instanceof Error ? e.message : e}`;
        }
      } finally {
        this.release();
      }
    } catch (e) {
      record = {
        id,
        trigger,
        startTime: rfc3339Seconds(start),
        completionTime: rfc3339Seconds(this.now()),
        result: 'Failed',
        message: e instanceof Error ? e.message : String(e),
      };
    } finally {
      store?.close();
    }
    try {
      await this.finish(p, record);
    } finally {
      this.locks.unlock(key);
    }
    // The next run (or a request that came in meanwhile).
    const latest = this.o.platforms.get(namespace, name);
    if (latest) this.sync(latest);
    return record;
  }

  private async finish(p: InferencePlatform, record: BackupRecord) {
    const { namespace, name } = p.metadata as { namespace: string; name: string };
    const latest = this.o.platforms.get(namespace, name) ?? p;
    const { running: _running, ...before } = this.current(latest).backup;
    const ok = record.result === 'Succeeded';
    let next: string | undefined;
    try {
      const spec = latest.spec.qdrant.backup;
      if (spec && !spec.suspend) {
        next = rfc3339Seconds(nextScheduleTime(spec.schedule, new Date(before.lastScheduleTime ?? latest.metadata.creationTimestamp ?? record.startTime)));
      }
    } catch {
      next = undefined;
    }
    const backup: BackupStatus = {
      ...before,
      ...(ok ? { lastSuccessfulTime: record.completionTime } : {}),
      nextScheduleTime: next,
      history: [record, ...(before.history ?? [])].slice(0, HISTORY),
    };
    await this.write(latest, backup, {
      type: ConditionType.BackupSucceeded,
      status: ok ? 'True' : 'False',
      reason: ok ? 'BackupCompleted' : 'BackupFailed',
      message: ok ? `backup ${record.id} to ${record.location}: ${record.message}` : `backup ${record.id} failed: ${record.message}`,
      lastTransitionTime: record.completionTime!,
    });
    if (ok) {
      this.o.logger.info('Backed up Qdrant', { name, namespace, backup: record.id, location: record.location, bytes: record.sizeBytes });
      void this.o.recorder.record(latest, 'Normal', 'BackupSucceeded', `Backup ${record.id} to ${record.location}: ${record.message}`);
    } else {
      this.o.logger.warn('Backing up Qdrant failed', { name, namespace, backup: record.id, error: record.message });
      void this.o.recorder.record(latest, 'Warning', 'BackupFailed', `Backup ${record.id} failed (retried on the next schedule): ${record.message}`);
    }
  }

  private async writeInvalidSchedule(p: InferencePlatform, why: string) {
    const { condition, backup } = this.current(p);
    if (condition?.reason === 'InvalidSchedule' && condition.message?.endsWith(why)) return;
    await this.write(p, { ...backup, nextScheduleTime: undefined }, {
      type: ConditionType.BackupSucceeded,
      status: 'False',
      reason: 'InvalidSchedule',
      message: `spec.backup.schedule: ${why}`,
      lastTransitionTime: rfc3339Seconds(this.now()),
    });
    void this.o.recorder.record(p, 'Warning', 'InvalidSchedule', `spec.backup.schedule: ${why}`);
  }

  /** Server-side apply of status.backup (and the condition) with this controller's own field manager. */
  private async write(p: InferencePlatform, backup: BackupStatus, condition?: Condition): Promise<void> {
    const key = keyOf(p);
    const prev = this.current(p).condition;
    let cond = condition ?? prev;
    if (cond && prev && condition && prev.status === condition.status) cond = { ...condition, lastTransitionTime: prev.lastTransitionTime };
    const clean = JSON.parse(JSON.stringify(backup));
    try {
      await this.o.client.apply(
        resourcePath(Resources.inferencePlatforms, p.metadata.namespace, p.metadata.name, 'status'),
        {
          apiVersion: p.apiVersion,
          kind: p.kind,
          metadata: { name: p.metadata.name, namespace: p.metadata.namespace },
          status: { backup: clean, ...(cond ? { conditions: [{ ...cond, observedGeneration: p.metadata.generation }] } : {}) },
        },
        BACKUP_FIELD_MANAGER,
      );
      this.written.set(key, { backup: clean, condition: cond });
    } catch (e) {
      this.o.logger.warn('Could not write backup status', { name: p.metadata.name, namespace: p.metadata.namespace, error: String(e) });
    }
  }
}
