import { KubeClient } from '../kube/KubeClient';
import { Logger, noopLogger } from '../logger';

export type EventType = 'Normal' | 'Warning';

/**
 * Records core/v1 Events on an object, as `kubectl describe` shows them. A
 * repeat of the same reason and message within the window bumps the count of
 * the existing Event instead of creating another (client-go's correlator).
 */
export class EventRecorder {
  private readonly recent = new Map<string, { name: string; count: number; at: number }>();

  constructor(
    private readonly client: KubeClient,
    private readonly component: string,
    private readonly logger: Logger = noopLogger,
    private readonly windowMs = 10 * 60_000,
  ) {}

  async record(obj: any, type: EventType, reason: string, message: string): Promise<void> {
    const ns = obj.metadata.namespace ?? 'default';
    const key = `${obj.metadata.uid}/${type}/${reason}/${message}`;
    const now = new Date();
    const prev = this.recent.get(key);
    try {
      if (prev && now.getTime() - prev.at < this.windowMs) {
        prev.count++;
        prev.at = now.getTime();
        await this.client.mergePatch(`/api/v1/namespaces/${ns}/events/${prev.name}`, {
          count: prev.count,
          lastTimestamp: now.toISOString().replace(/\.\d+Z$/, 'Z'),
        });
        return;
      }
      const name = `${obj.metadata.name}.${now.getTime().toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`;
      const ts = now.toISOString().replace(/\.\d+Z$/, 'Z');
      await this.client.request('POST', `/api/v1/namespaces/${ns}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: ns },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace: ns,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        reason,
        message: message.slice(0, 1024),
        type,
        source: { component: this.component },
        reportingComponent: this.component,
        reportingInstance: this.component,
        firstTimestamp: ts,
        lastTimestamp: ts,
        count: 1,
      });
      this.recent.set(key, { name, count: 1, at: now.getTime() });
      if (this.recent.size > 10_000) this.recent.delete(this.recent.keys().next().value!);
    } catch (e) {
      // Events are best effort; losing one must never fail a reconcile.
      this.logger.warn(`could not record event ${reason}: ${e instanceof Error ? e.message : e}`);
    }
  }
}
