import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { ConflictError } from '@backstage/errors';
import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import {
  CATALOG_ENTITY_ANNOTATION,
  InferencePlatform,
  inferencePlatformPermissions,
  OWNER_ANNOTATION,
} from '@cv-platform/plugin-inference-platform-common';
import { createRouter } from './service/router';
import {
  embeddedOperatorServiceRef,
  inferencePlatformOperatorExtensionPoint,
} from '@cv-platform/plugin-inference-platform-node';
import type { ChildMutator, KubeCredentialsProvider } from '@cv-platform/operator';
import { PlatformFeed } from './service/PlatformFeed';
import {
  isPlatformOwner,
  PlatformResource,
  platformPermissionResourceRef,
} from './permissions/rules';

const normalizeRef = (ref: string) =>
  stringifyEntityRef(
    parseEntityRef(ref, { defaultKind: 'group', defaultNamespace: 'default' }),
  );

/**
 * The inference-platform backend plugin: hosts the operator, the REST API
 * and the live SSE feed.
 *
 * @public
 */
export const inferencePlatformPlugin = createBackendPlugin({
  pluginId: 'inference-platform',
  register(env) {
    const childMutators: ChildMutator[] = [];
    let credentials: KubeCredentialsProvider | undefined;
    env.registerExtensionPoint(inferencePlatformOperatorExtensionPoint, {
      addChildMutator: mutator => {
        childMutators.push(mutator);
      },
      setCredentialsProvider: provider => {
        if (credentials) {
          throw new ConflictError(
            'inference-platform: a credentials provider is already set; one module may set it',
          );
        }
        credentials = provider;
      },
    });
    env.registerInit({
      deps: {
        logger: coreServices.logger,
        httpRouter: coreServices.httpRouter,
        httpAuth: coreServices.httpAuth,
        auth: coreServices.auth,
        permissions: coreServices.permissions,
        auditor: coreServices.auditor,
        config: coreServices.rootConfig,
        permissionsRegistry: coreServices.permissionsRegistry,
        lifecycle: coreServices.lifecycle,
        catalog: catalogServiceRef,
        embedded: embeddedOperatorServiceRef,
      },
      async init({
        logger,
        httpRouter,
        httpAuth,
        auth,
        permissions,
        auditor,
        config,
        permissionsRegistry,
        lifecycle,
        catalog,
        embedded,
      }) {
        for (const { operator } of embedded.clusters) {
          // Modules have registered their mutators by now (they init before
          // this plugin): the operator's first pass applies children with them.
          for (const mutator of childMutators)
            operator?.addChildMutator(mutator);
          // Before the operator's first request: it starts once every plugin has initialized.
          if (credentials) operator?.setCredentialsProvider(credentials);
          operator?.releaseReconcile();
        }

        // Owners: the CR's owner annotation and the owner of its linked catalog entity.
        const ownerCache = new Map<string, { at: number; owners: string[] }>();
        const resolveOwners = async (
          p: InferencePlatform,
        ): Promise<string[]> => {
          const key = `${p.metadata.uid}/${p.metadata.resourceVersion}`;
          const hit = ownerCache.get(key);
          if (hit && Date.now() - hit.at < 30_000) return hit.owners;
          const owners = new Set<string>();
          const a = p.metadata.annotations ?? {};
          if (a[OWNER_ANNOTATION])
            owners.add(normalizeRef(a[OWNER_ANNOTATION]));
          if (a[CATALOG_ENTITY_ANNOTATION]) {
            const entity = await catalog
              .getEntityByRef(a[CATALOG_ENTITY_ANNOTATION], {
                credentials: await auth.getOwnServiceCredentials(),
              })
              .catch(() => undefined);
            const owner = entity?.spec?.owner;
            if (typeof owner === 'string') owners.add(normalizeRef(owner));
          }
          const list = [...owners];
          ownerCache.set(key, { at: Date.now(), owners: list });
          if (ownerCache.size > 5000)
            ownerCache.delete(ownerCache.keys().next().value!);
          return list;
        };

        // Update and delete may be conditional (owner-only): the permission
        // framework asks this plugin to load the platforms and apply the rules.
        // Read and create concern no single platform (basic permissions);
        // registered so a policy author sees every permission in the metadata.
        permissionsRegistry.addPermissions(
          inferencePlatformPermissions.filter(p => p.type === 'basic'),
        );
        permissionsRegistry.addResourceType({
          resourceRef: platformPermissionResourceRef,
          permissions: inferencePlatformPermissions.filter(
            p => p.type === 'resource',
          ),
          rules: [isPlatformOwner],
          // Refs are `<namespace>/<name>` on the default cluster and
          // `<cluster>/<namespace>/<name>` on another (platformResourceRef).
          getResources: async refs =>
            Promise.all(
              refs.map(async (ref): Promise<PlatformResource | undefined> => {
                const parts = ref.split('/');
                const [clusterName, ns, name] =
                  parts.length === 3
                    ? parts
                    : [embedded.clusters[0]?.name, ...parts];
                const cluster = embedded.clusters.find(
                  c => c.name === clusterName,
                );
                const p = cluster?.operator?.platform(ns, name);
                return p
                  ? {
                      cluster: cluster!.name,
                      platform: p,
                      owners: await resolveOwners(p),
                    }
                  : undefined;
              }),
            ),
        });

        const recheck = config.getOptionalNumber(
          'inferencePlatform.feed.permissionRecheckSeconds',
        );
        const clusters = embedded.clusters.map(c => {
          const feed = c.operator
            ? new PlatformFeed(c.operator, {
                cluster: c.name,
                ...(recheck ? { permissionRecheckMs: recheck * 1000 } : {}),
              })
            : undefined;
          if (feed) lifecycle.addShutdownHook(() => feed.close());
          return { ...c, feed };
        });

        httpRouter.use(
          await createRouter({
            logger,
            httpAuth,
            auth,
            permissions,
            auditor,
            clusters,
          }),
        );
        // Liveness probes carry no credentials.
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
      },
    });
  },
});
