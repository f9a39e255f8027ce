import {
  createApiFactory,
  createComponentExtension,
  createPlugin,
  createRoutableExtension,
  discoveryApiRef,
  fetchApiRef,
} from '@backstage/core-plugin-api';
import { inferencePlatformApiRef, InferencePlatformClient } from './api';
import {
  createPlatformRouteRef,
  platformRouteRef,
  rootRouteRef,
} from './routes';

/** @public */
export const inferencePlatformPlugin = createPlugin({
  id: 'inference-platform',
  apis: [
    createApiFactory({
      api: inferencePlatformApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: ({ discoveryApi, fetchApi }) =>
        new InferencePlatformClient({ discoveryApi, fetchApi }),
    }),
  ],
  routes: { root: rootRouteRef, platform: platformRouteRef },
  externalRoutes: { createPlatform: createPlatformRouteRef },
});

/**
 * The list of platforms, and each platform's page below it.
 *
 * @public
 */
export const InferencePlatformsPage = inferencePlatformPlugin.provide(
  createRoutableExtension({
    name: 'InferencePlatformsPage',
    component: () =>
      import('./components/InferencePlatformsPage').then(
        m => m.InferencePlatformsPage,
      ),
    mountPoint: rootRouteRef,
  }),
);

/**
 * Card of the platform an entity names (`cv.platform.tech/inference-platform`).
 *
 * @public
 */
export const EntityInferencePlatformCard: () => JSX.Element = inferencePlatformPlugin.provide(
  createComponentExtension({
    name: 'EntityInferencePlatformCard',
    component: {
      lazy: () =>
        import('./components/EntityInferencePlatform').then(
          m => m.EntityInferencePlatformCard,
        ),
    },
  }),
);

/**
 * Entity tab with the full view of the platform an entity names.
 *
 * @public
 */
export const EntityInferencePlatformContent: () => JSX.Element = inferencePlatformPlugin.provide(
  createComponentExtension({
    name: 'EntityInferencePlatformContent',
    component: {
      lazy: () =>
        import('./components/EntityInferencePlatform').then(
          m => m.EntityInferencePlatformContent,
        ),
    },
  }),
);
