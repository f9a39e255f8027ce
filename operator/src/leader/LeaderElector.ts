import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { Logger, noopLogger } from '../logger';

/** @public */
export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  /** How often the leader renews and candidates retry. */
  retryPeriodMs?: number;
  logger?: Logger;
}

const microTime = (d = new Date()) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go does it:
 * a candidate takes the Lease when it is absent or its holder stopped
 * renewing for leaseDurationSeconds; every update carries the resourceVersion
 * it read, so two candidates can never both win.
 *
 * @public
 */
export class LeaderElector {
  private leading = false;
  private readonly path: string;
  private lastObservedRenew = 0;
  private lastObservedRv = '';

  constructor(
    private readonly client: KubeClient,
    private readonly options: LeaderElectionOptions,
    private readonly callbacks: {
      onStartedLeading: () => void;
      onStoppedLeading: () => void;
      onNewLeader?: (identity: string) => void;
    },
  ) {
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases/${options.name}`;
  }

  isLeader(): boolean {
    return this.leading;
  }

  private get duration() {
    return this.options.leaseDurationSeconds ?? 15;
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const spec = {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: this.duration,
      renewTime: microTime(now),
    };
    let lease: any;
    try {
      lease = await this.client.get(this.path);
    } catch (e) {
      if (!(e instanceof KubeApiError && e.statusCode === 404)) throw e;
      await this.client.request(
        'POST',
        this.path.replace(/\/[^/]+$/, ''),
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.options.name, namespace: this.options.namespace },
          spec: { ...spec, acquireTime: microTime(now), leaseTransitions: 0 },
        },
      );
      return true;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    const rv = lease.metadata.resourceVersion;
    if (rv !== this.lastObservedRv) {
      // Expiry is judged by our own clock since we last saw the lease change,
      // so clock skew between candidates does not matter.
      this.lastObservedRv = rv;
      this.lastObservedRenew = Date.now();
      if (holder && holder !== this.options.identity) this.callbacks.onNewLeader?.(holder);
    }
    const expired =
      !holder ||
      Date.now() > this.lastObservedRenew + (lease.spec?.leaseDurationSeconds ?? this.duration) * 1000;
    if (holder !== this.options.identity && !expired) return false;
    const transitions = (lease.spec?.leaseTransitions ?? 0) + (holder === this.options.identity ? 0 : 1);
    await this.client.request('PUT', this.path, {
      ...lease,
      spec: {
        ...lease.spec,
        ...spec,
        acquireTime: holder === this.options.identity ? lease.spec.acquireTime : microTime(now),
        leaseTransitions: transitions,
      },
    });
    return true;
  }

  /** Campaigns and renews until the signal aborts; then releases the lease. */
  async run(signal: AbortSignal): Promise<void> {
    const log = this.options.logger ?? noopLogger;
    const period = this.options.retryPeriodMs ?? 2000;
    while (!signal.aborted) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (e) {
        // Conflicts mean someone else wrote first; anything else is transient.
        if (!(e instanceof KubeApiError && e.statusCode === 409)) {
          log.warn(`leader election: ${e instanceof Error ? e.message : e}`);
        }
      }
      if (ok && !this.leading) {
        this.leading = true;
        log.info('Became leader', { lease: `${this.options.namespace}/${this.options.name}`, identity: this.options.identity });
        this.callbacks.onStartedLeading();
      } else if (!ok && this.leading) {
        this.leading = false;
        log.warn('Lost leadership', { identity: this.options.identity });
        this.callbacks.onStoppedLeading();
      }
      await new Promise<void>(resolve => {
        const t = setTimeout(resolve, period);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        }, { once: true });
      });
    }
    if (this.leading) {
      this.leading = false;
      this.callbacks.onStoppedLeading();
      await this.release().catch(() => undefined);
    }
  }

  /** Lets a standby take over at once instead of waiting for expiry. */
  private async release() {
    const lease = await this.client.get(this.path);
    if (lease.spec?.holderIdentity !== this.options.identity) return;
    await this.client.request('PUT', this.path, {
      ...lease,
      spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() },
    });
  }
}
