import { createBackend } from '@backstage/backend-defaults';
import { inferencePlatformModuleOperatorMetrics } from '@cv-platform/plugin-inference-platform-backend/alpha';

const backend = createBackend();

backend.add(import('@backstage/plugin-app-backend'));
backend.add(import('@backstage/plugin-proxy-backend'));

backend.add(import('@backstage/plugin-auth-backend'));
// Guest sign-in is for local use; production deployments configure a real provider.
backend.add(import('@backstage/plugin-auth-backend-module-guest-provider'));

backend.add(import('@backstage/plugin-catalog-backend'));
backend.add(
  import('@backstage/plugin-catalog-backend-module-scaffolder-entity-model'),
);
backend.add(import('@backstage/plugin-catalog-backend-module-logs'));

backend.add(import('@backstage/plugin-scaffolder-backend'));
backend.add(
  import('@cv-platform/plugin-scaffolder-backend-module-inference-platform'),
);

// The project's own docs (mkdocs.yml, docs/), built on first view (techdocs in app-config.yaml).
backend.add(import('@backstage/plugin-techdocs-backend'));

backend.add(import('@backstage/plugin-permission-backend'));
backend.add(
  import('@backstage/plugin-permission-backend-module-allow-all-policy'),
);

backend.add(import('@cv-platform/plugin-inference-platform-backend'));
backend.add(
  import('@cv-platform/plugin-catalog-backend-module-inference-platform'),
);
// The embedded operator's metrics through the backend's OpenTelemetry exporter.
backend.add(inferencePlatformModuleOperatorMetrics);

backend.start();
