import { LoggerService } from '@backstage/backend-plugin-api';
import { EntityProvider, EntityProviderConnection } from '@backstage/plugin-catalog-node';
import type { Operator } from '@cv-platform/operator';
import { toV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import type { PlatformEntityTransformer } from '@cv-platform/plugin-inference-platform-node';
import { PlatformEntityDefaults, platformToEntity } from './platformToEntity';

/**
 * Publishes every InferencePlatform of one cluster as a catalog Resource. Changes from the
 * operator's informer are batched into one full mutation per second, so
 * entities appear and disappear with their CRs without a polling schedule.
 */
export class InferencePlatformEntityProvider implements EntityProvider {
  private connection?: EntityProviderConnection;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  constructor(
    private readonly operator: Operator,
    /** The cluster (and whether there are several) come with the defaults. */
    private readonly defaults: Omit<PlatformEntityDefaults, 'providerName'>,
    private readonly logger: LoggerService,
    private readonly debounceMs = 1000,
    /** Run over each entity in order (the catalog module's extension point). */
    private readonly transformers: PlatformEntityTransformer[] = [],
  ) {}

  /** One provider per cluster: each replaces only its own cluster's entities. */
  getProviderName(): string {
    return this.defaults.severalClusters
      ? `inference-platform-${this.defaults.cluster}`
      : 'inference-platform';
  }

  async connect(connection: EntityProviderConnection): Promise<void> {
    this.connection = connection;
    this.unsubscribe = this.operator.subscribe(() => this.schedule());
    this.schedule();
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.publish().catch(e => this.logger.warn(`publishing platform entities failed: ${e}`));
    }, this.debounceMs);
    this.timer.unref?.();
  }

  async publish(): Promise<void> {
    if (!this.connection) return;
    if (!this.operator.hasSynced()) {
      // An empty cache would delete every entity; wait for the first list.
      this.schedule();
      return;
    }
    const providerName = this.getProviderName();
    const entities = this.operator.platforms().map(p => {
      let entity = platformToEntity(p, { ...this.defaults, providerName });
      if (this.transformers.length) {
        const platform = toV1beta1(p);
        for (const transform of this.transformers) entity = transform(entity, platform);
      }
      return { entity, locationKey: providerName };
    });
    await this.connection.applyMutation({ type: 'full', entities });
  }

  close() {
    this.unsubscribe?.();
    clearTimeout(this.timer);
  }
}
