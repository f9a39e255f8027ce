import {
  ApiBlueprint,
  createFrontendPlugin,
  discoveryApiRef,
  FrontendFeature,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import {
  EntityCardBlueprint,
  EntityContentBlueprint,
} from '@backstage/plugin-catalog-react/alpha';
import {
  compatWrapper,
  convertLegacyRouteRef,
  convertLegacyRouteRefs,
} from '@backstage/core-compat-api';
import MemoryIcon from '@material-ui/icons/Memory';
import { inferencePlatformApiRef, InferencePlatformClient } from './api';
import { isInferencePlatformAvailable } from './components/EntityInferencePlatform/platformAnnotation';
import {
  createPlatformRouteRef,
  platformRouteRef,
  rootRouteRef,
} from './routes';

/** @alpha */
export const inferencePlatformApi = ApiBlueprint.make({
  params: defineParams =>
    defineParams({
      api: inferencePlatformApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: ({ discoveryApi, fetchApi }) =>
        new InferencePlatformClient({ discoveryApi, fetchApi }),
    }),
});

/** The list and each platform's page, in the app's page frame (nav item from title and icon). @alpha */
export const inferencePlatformsPage = PageBlueprint.make({
  params: {
    path: '/inference-platforms',
    title: 'Inference platforms',
    icon: <MemoryIcon />,
    routeRef: convertLegacyRouteRef(rootRouteRef),
    loader: () =>
      import('./components/InferencePlatformsPage').then(m =>
        compatWrapper(<m.InferencePlatformsPage framed={false} />),
      ),
  },
});

/** On entities that name a platform (cv.platform.tech/inference-platform). */
const inferencePlatformEntityCard = EntityCardBlueprint.make({
  params: {
    filter: isInferencePlatformAvailable,
    loader: () =>
      import('./components/EntityInferencePlatform').then(m =>
        compatWrapper(<m.EntityInferencePlatformCard />),
      ),
  },
});

const inferencePlatformEntityContent = EntityContentBlueprint.make({
  params: {
    path: 'inference-platform',
    title: 'Inference platform',
    filter: isInferencePlatformAvailable,
    loader: () =>
      import('./components/EntityInferencePlatform').then(m =>
        compatWrapper(<m.EntityInferencePlatformContent />),
      ),
  },
});

/**
 * The plugin for Backstage's new frontend system: install the package and
 * feature discovery picks it up, or add it to `createApp({ features: [...] })`.
 *
 * @alpha
 */
const inferencePlatformPlugin: FrontendFeature = createFrontendPlugin({
  pluginId: 'inference-platform',
  title: 'Inference platforms',
  icon: <MemoryIcon />,
  routes: convertLegacyRouteRefs({
    root: rootRouteRef,
    platform: platformRouteRef,
  }),
  externalRoutes: convertLegacyRouteRefs({
    createPlatform: createPlatformRouteRef,
  }),
  extensions: [
    inferencePlatformApi,
    inferencePlatformsPage,
    inferencePlatformEntityCard,
    inferencePlatformEntityContent,
  ],
});

export default inferencePlatformPlugin;
