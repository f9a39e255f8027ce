import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { scaffolderActionsExtensionPoint } from '@backstage/plugin-scaffolder-node';
import { createInferencePlatformAction } from './actions/createInferencePlatformAction';
import { createRefreshPlatformEntityAction } from './actions/createRefreshPlatformEntityAction';
import { managedClusterNames } from '@cv-platform/plugin-inference-platform-node';
import { kubeClientFromConfig } from './kube/kubeClientFromConfig';

/**
 * Adds the `inference-platform:create` and `inference-platform:catalog:refresh`
 * actions to the scaffolder.
 *
 * @public
 */
export const scaffolderModuleInferencePlatform = createBackendModule({
  pluginId: 'scaffolder',
  moduleId: 'inference-platform',
  register(reg) {
    reg.registerInit({
      deps: {
        scaffolder: scaffolderActionsExtensionPoint,
        config: coreServices.rootConfig,
        permissions: coreServices.permissions,
        catalog: catalogServiceRef,
      },
      async init({ scaffolder, config, permissions, catalog }) {
        const clusterNames = managedClusterNames(config);
        scaffolder.addActions(
          createInferencePlatformAction({
            kubeClient: kubeClientFromConfig(config),
            clusterNames,
            permissions,
            appBaseUrl: config.getString('app.baseUrl'),
          }),
          createRefreshPlatformEntityAction({ catalog, clusterNames }),
        );
      },
    });
  },
});
