import { setTimeout as sleep } from 'node:timers/promises';
import { InputError, NotFoundError } from '@backstage/errors';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import { platformEntityRef } from '@cv-platform/plugin-inference-platform-common';

/** @public */
export const REFRESH_ENTITY_ACTION_ID = 'inference-platform:catalog:refresh';

/** @public */
export interface RefreshPlatformEntityActionOptions {
  catalog: CatalogService;
  /** The clusters the portal manages, the default first; with several, entity names carry the cluster. Default: one. */
  clusterNames?: string[];
  /** Poll interval while waiting for the entity. Default 1 s. */
  pollIntervalMs?: number;
}

/**
 * The `inference-platform:catalog:refresh` action. Platform entities are not
 * registered from a file: the inference-platform backend publishes one
 * Resource per platform. This action waits for that entity to reach the
 * catalog and then refreshes it, so the task's catalog link works as soon as
 * the task finishes.
 *
 * @public
 */
export function createRefreshPlatformEntityAction(
  options: RefreshPlatformEntityActionOptions,
) {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  return createTemplateAction({
    id: REFRESH_ENTITY_ACTION_ID,
    description:
      "Waits until the catalog has the Resource entity of an InferencePlatform (published by the inference-platform backend) and refreshes it; outputs the entity's ref.",
    supportsDryRun: true,
    examples: [
      {
        description:
          'Wait for the catalog entity of the platform created by step "create"',
        example: [
          'steps:',
          '  - id: catalog',
          '    name: Refresh the catalog entity',
          `    action: ${REFRESH_ENTITY_ACTION_ID}`,
          '    input:',
          '      cluster: ${{ steps.create.output.cluster }}',
          '      namespace: ${{ steps.create.output.namespace }}',
          '      name: ${{ steps.create.output.name }}',
          '      timeoutSeconds: 60',
        ].join('\n'),
      },
    ],
    schema: {
      input: {
        cluster: z =>
          z
            .string()
            .optional()
            .describe(
              'Cluster of the platform (a name of inferencePlatform.clusters). Default: the default cluster.',
            ),
        namespace: z => z.string().describe('Namespace of the platform.'),
        name: z => z.string().describe('Name of the platform.'),
        timeoutSeconds: z =>
          z
            .number()
            .int()
            .min(1)
            .max(600)
            .default(60)
            .describe('How long to wait for the entity to appear.'),
      },
      output: {
        entityRef: z =>
          z.string().describe('Ref of the catalog Resource of the platform.'),
      },
    },
    async handler(ctx) {
      const { namespace, name } = ctx.input;
      const clusterNames = options.clusterNames ?? ['default'];
      const cluster = ctx.input.cluster || clusterNames[0];
      if (!clusterNames.includes(cluster)) {
        throw new InputError(
          `Unknown cluster "${cluster}": this portal manages ${clusterNames.join(', ')}`,
        );
      }
      const entityRef = platformEntityRef(
        namespace,
        name,
        clusterNames.length > 1 ? cluster : undefined,
      );
      ctx.output('entityRef', entityRef);
      if (ctx.isDryRun) {
        ctx.logger.info(`Would wait for ${entityRef} and refresh it (dry run)`);
        return;
      }
      const credentials = await ctx.getInitiatorCredentials();
      const timeoutSeconds = ctx.input.timeoutSeconds ?? 60;
      const deadline = Date.now() + timeoutSeconds * 1000;
      while (
        !(await options.catalog.getEntityByRef(entityRef, { credentials }))
      ) {
        if (Date.now() >= deadline) {
          throw new NotFoundError(
            `${entityRef} did not appear in the catalog within ${timeoutSeconds} s. The platform itself exists; its entity is published by the inference-platform backend plugin, so check that the plugin is installed and watches namespace ${namespace}`,
          );
        }
        await sleep(pollIntervalMs, undefined, { signal: ctx.signal });
      }
      await options.catalog.refreshEntity(entityRef, { credentials });
      ctx.logger.info(`${entityRef} is in the catalog and was refreshed`);
    },
  });
}
