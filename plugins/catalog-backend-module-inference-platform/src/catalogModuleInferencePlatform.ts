import { coreServices, createBackendModule } from '@backstage/backend-plugin-api';
import { catalogProcessingExtensionPoint } from '@backstage/plugin-catalog-node';
import {
  embeddedOperatorServiceRef,
  inferencePlatformCatalogExtensionPoint,
  PlatformEntityTransformer,
} from '@cv-platform/plugin-inference-platform-node';
import { InferencePlatformEntityProvider } from './InferencePlatformEntityProvider';
import { PlatformDependencyProcessor } from './PlatformDependencyProcessor';

/**
 * Catalog module: every InferencePlatform becomes a Resource entity, and
 * entities naming a platform depend on it.
 *
 * @public
 */
export const catalogModuleInferencePlatform = createBackendModule({
  pluginId: 'catalog',
  moduleId: 'inference-platform',
  register(reg) {
    const transformers: PlatformEntityTransformer[] = [];
    reg.registerExtensionPoint(inferencePlatformCatalogExtensionPoint, {
      addEntityTransformer: transformer => {
        transformers.push(transformer);
      },
    });
    reg.registerInit({
      deps: {
        catalog: catalogProcessingExtensionPoint,
        config: coreServices.rootConfig,
        logger: coreServices.logger,
        embedded: embeddedOperatorServiceRef,
        lifecycle: coreServices.lifecycle,
      },
      async init({ catalog, config, logger, embedded, lifecycle }) {
        const several = embedded.clusters.length > 1;
        // Relations need no cluster connection: they come from the entities' own annotations.
        catalog.addProcessor(
          new PlatformDependencyProcessor({
            defaultCluster: embedded.clusters[0]?.name ?? 'default',
            several,
          }),
        );
        const c = config.getOptionalConfig('inferencePlatform.catalog');
        for (const { name, operator } of embedded.clusters) {
          if (!operator) {
            logger.warn(
              `inference-platform entity provider disabled${several ? ` for cluster ${name}` : ''}: no cluster configured`,
            );
            continue;
          }
          const provider = new InferencePlatformEntityProvider(
            operator,
            {
              appBaseUrl: config.getString('app.baseUrl'),
              defaultOwner: c?.getOptionalString('defaultOwner') ?? 'group:default/ml-platform',
              defaultSystem: c?.getOptionalString('defaultSystem') ?? 'cv-inference-platform',
              cluster: name,
              severalClusters: several,
            },
            logger,
            undefined,
            transformers,
          );
          catalog.addEntityProvider(provider);
          lifecycle.addShutdownHook(() => provider.close());
        }
      },
    });
  },
});
