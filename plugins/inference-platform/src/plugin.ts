import {
  createPlugin,
  createRoutableExtension,
} from '@backstage/core-plugin-api';
import { rootRouteRef } from './routes';

/** @public */
export const inferencePlatformPlugin = createPlugin({
  id: 'inference-platform',
  routes: { root: rootRouteRef },
});

/** @public */
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
