import { coreServices, createBackendModule } from '@backstage/backend-plugin-api';
import { metricsServiceRef } from '@backstage/backend-plugin-api/alpha';
import { embeddedOperatorServiceRef } from '@cv-platform/plugin-inference-platform-node';
import { exportOperatorMetrics } from './exportOperatorMetrics';

/**
 * The embedded operators' metrics (reconciles, queue, API requests and
 * writes, informers) through the backend's metrics service, i.e. its
 * OpenTelemetry exporter. A module, so a backend without that service
 * (alpha in Backstage) still runs the plugin; the plugin's own `/metrics`
 * (Prometheus text) serves them either way.
 *
 * @alpha
 */
export const inferencePlatformModuleOperatorMetrics = createBackendModule({
  pluginId: 'inference-platform',
  moduleId: 'operator-metrics',
  register(env) {
    env.registerInit({
      deps: { metrics: metricsServiceRef, embedded: embeddedOperatorServiceRef, logger: coreServices.logger },
      async init({ metrics, embedded, logger }) {
        const sources = embedded.clusters.flatMap(c =>
          c.operator ? [{ cluster: c.name, registry: c.operator.metrics.registry }] : [],
        );
        if (!sources.length) return;
        const names = exportOperatorMetrics(metrics, sources);
        logger.info(`Exporting ${names.length} operator metrics through the metrics service`);
      },
    });
  },
});
