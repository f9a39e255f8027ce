import {
  createExternalRouteRef,
  createRouteRef,
  createSubRouteRef,
} from '@backstage/core-plugin-api';

export const rootRouteRef = createRouteRef({ id: 'inference-platform' });

/** One platform's page, below the list page. */
export const platformRouteRef = createSubRouteRef({
  id: 'inference-platform/platform',
  parent: rootRouteRef,
  path: '/:namespace/:name',
});

/** Where users create platforms (the scaffolder); bound by the app. */
export const createPlatformRouteRef = createExternalRouteRef({
  id: 'inference-platform/create',
  optional: true,
});
