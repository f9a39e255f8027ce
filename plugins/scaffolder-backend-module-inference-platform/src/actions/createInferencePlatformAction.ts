import { PermissionsService } from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError } from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { createTemplateAction, TemplateAction } from '@backstage/plugin-scaffolder-node';
import { KubeClient } from '@cv-platform/operator';
import {
  inferencePlatformCreatePermission,
  platformEntityRef,
  platformPagePath,
} from '@cv-platform/plugin-inference-platform-common';
import {
  PLATFORM_NAME_MAX_LENGTH,
  PLATFORM_NAME_PATTERN,
} from '@cv-platform/inference-platform-api';
import yaml from 'js-yaml';
import { PlatformCreator } from '../kube/PlatformCreator';
import { waitForReady } from '../kube/waitForReady';
import { buildPlatform } from './buildPlatform';
import { examples } from './createInferencePlatformAction.examples';

/** @public */
export const CREATE_ACTION_ID = 'inference-platform:create';

/**
 * The CRD's own bounds on metadata.name (children are named after it), so
 * the form and the action reject a bad name before the API server does.
 */
export { PLATFORM_NAME_MAX_LENGTH, PLATFORM_NAME_PATTERN };
const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** @public */
export interface CreateInferencePlatformActionOptions {
  /**
   * The cluster to create platforms in, by name (the default cluster
   * without one); called on each run, so it may load lazily.
   */
  kubeClient: (cluster?: string) => KubeClient;
  /**
   * The clusters the portal manages, the default first
   * (`inferencePlatform.clusters`). With more than one, outputs name the
   * cluster (entity ref, portal link). Default: one cluster.
   */
  clusterNames?: string[];
  permissions: PermissionsService;
  /** app.baseUrl, for the portal link. */
  appBaseUrl: string;
  /** Poll interval of the wait for Ready. Default 2 s. */
  waitIntervalMs?: number;
  /** How long phase Failed must persist before the wait gives up. Default 30 s. */
  failedGraceMs?: number;
}

/**
 * The `inference-platform:create` scaffolder action: builds an
 * InferencePlatform from its input, has the API server validate it with a
 * dry run, creates it once, and optionally waits until it is Ready.
 *
 * @public
 */
export function createInferencePlatformAction(
  options: CreateInferencePlatformActionOptions,
  // The input's type is the zod schema's; spelled out it runs to hundreds of
  // lines whose member order TypeScript does not keep from one build to the
  // next, and the API report must be stable. The schema still checks input.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): TemplateAction<any, any, 'v2'> {
  return createTemplateAction({
    id: CREATE_ACTION_ID,
    description:
      'Creates an InferencePlatform (cv.platform.tech/v1beta1: Qdrant plus inference servers) in Kubernetes, validated first by a server-side dry run against the CRD; idempotent, so re-running a task never duplicates it.',
    examples,
    supportsDryRun: true,
    schema: {
      input: {
        name: z =>
          z
            .string()
            .max(PLATFORM_NAME_MAX_LENGTH)
            .regex(new RegExp(PLATFORM_NAME_PATTERN))
            .describe(
              `Name of the platform: lower-case letters, digits and "-", starting with a letter, at most ${PLATFORM_NAME_MAX_LENGTH} characters.`,
            ),
        cluster: z =>
          z
            .string()
            .max(63)
            // Blank (a form's empty field) means the default cluster too.
            .regex(new RegExp(`${DNS_LABEL_PATTERN}|^$`))
            .optional()
            .describe(
              'Cluster to create the platform in: a name of inferencePlatform.clusters. Default (or blank): the first (default) cluster.',
            ),
        namespace: z =>
          z
            .string()
            .max(63)
            .regex(new RegExp(DNS_LABEL_PATTERN))
            .describe(
              'Kubernetes namespace to create the platform in; it must exist.',
            ),
        owner: z =>
          z
            .string()
            .optional()
            .describe(
              'Catalog entity ref of the owning user or group (e.g. group:default/ml-platform); stored as the cv.platform.tech/owner annotation.',
            ),
        entityRef: z =>
          z
            .string()
            .optional()
            .describe(
              'Catalog entity ref of the component this platform serves; stored as the cv.platform.tech/catalog-entity annotation.',
            ),
        qdrant: z =>
          z
            .object({
              version: z
                .string()
                .describe(
                  'Qdrant release, e.g. v1.14.1; selects the image tag.',
                ),
              replicas: z
                .number()
                .int()
                .optional()
                .describe(
                  'Number of Qdrant peers (1-100); 2 or more runs Qdrant distributed.',
                ),
              storage: z
                .object({
                  size: z
                    .union([z.string(), z.number()])
                    .optional()
                    .describe(
                      'spec.qdrant.storage.size: size of each Qdrant data volume, e.g. 10Gi; volumes only grow.',
                    ),
                  className: z
                    .string()
                    .optional()
                    .describe(
                      'spec.qdrant.storage.className: StorageClass of the data volumes; empty uses the cluster default. Immutable.',
                    ),
                })
                .passthrough()
                .optional()
                .describe(
                  'spec.qdrant.storage: the Qdrant data volumes, one per peer.',
                ),
            })
            .passthrough()
            .describe(
              'spec.qdrant of the cv.platform.tech/v1beta1 custom resource. Other spec.qdrant fields are passed through; the CRD validates them.',
            ),
        inference: z =>
          z
            .object({
              image: z.string().describe('Image of the inference-service.'),
              model: z
                .object({
                  url: z
                    .string()
                    .describe(
                      'spec.inference.model.url: where the ONNX model is loaded from: s3://, http(s)://, pvc://<claim>/<path> or file://.',
                    ),
                  source: z
                    .object({
                      mode: z
                        .enum(['emptyDir', 'pvc'])
                        .optional()
                        .describe(
                          'emptyDir (in memory) for small models, pvc for large ones.',
                        ),
                      sizeLimit: z
                        .union([z.string(), z.number()])
                        .optional()
                        .describe('Size of the model volume, e.g. 1Gi.'),
                      storageClassName: z
                        .string()
                        .optional()
                        .describe('StorageClass of the model PVC (mode pvc).'),
                    })
                    .passthrough()
                    .optional()
                    .describe(
                      'spec.inference.model.source: how the model is fetched and held before the server starts. Other source fields are passed through; the CRD validates them.',
                    ),
                  update: z
                    .enum(['HotReload', 'Rollout'])
                    .optional()
                    .describe(
                      'spec.inference.model.update: how a new url reaches running servers, HotReload (default) or Rollout.',
                    ),
                })
                .passthrough()
                .describe(
                  'spec.inference.model: the ONNX model the servers run; url is required.',
                ),
              replicas: z
                .number()
                .int()
                .optional()
                .describe('Number of inference servers (0-1000).'),
              resources: z
                .object({
                  requests: z
                    .record(z.union([z.string(), z.number()]))
                    .optional()
                    .describe('e.g. { cpu: "1", memory: 2Gi }'),
                  limits: z
                    .record(z.union([z.string(), z.number()]))
                    .optional()
                    .describe('Each limit must be >= its request.'),
                })
                .optional()
                .describe('Compute resources of each inference server.'),
              gpu: z
                .object({
                  count: z
                    .number()
                    .int()
                    .optional()
                    .describe('nvidia.com/gpu per server (0-16).'),
                  type: z
                    .string()
                    .optional()
                    .describe(
                      'Required GPU product, e.g. NVIDIA-A100-SXM4-40GB; needs count > 0.',
                    ),
                })
                .optional()
                .describe('GPU requirements of each inference server.'),
            })
            .passthrough()
            .describe(
              'spec.inference of the cv.platform.tech/v1beta1 custom resource. Other spec.inference fields (batching, canary, autoscaling, ...) are passed through; the CRD validates them.',
            ),
        backup: z =>
          z
            .object({
              schedule: z
                .string()
                .describe('Cron schedule in UTC, e.g. "0 3 * * *".'),
            })
            .passthrough()
            .optional()
            .describe(
              'spec.backup: scheduled snapshots of every Qdrant collection to S3 (schedule, retention, s3: {bucket, prefix, endpoint, region, credentialsSecretRef}); the CRD validates the fields.',
            ),
        createInCluster: z =>
          z
            .boolean()
            .default(true)
            .describe(
              'Create the platform now. False only validates it with a server-side dry run and outputs the manifest (for GitOps).',
            ),
        waitForReady: z =>
          z
            .boolean()
            .default(false)
            .describe(
              'Wait until the operator reports phase Ready, logging progress.',
            ),
        timeoutSeconds: z =>
          z
            .number()
            .int()
            .min(1)
            .max(3600)
            .default(600)
            .describe('How long to wait for phase Ready.'),
      },
      output: {
        cluster: z =>
          z.string().describe('Cluster the platform was created in.'),
        name: z => z.string().describe('Name of the platform.'),
        namespace: z => z.string().describe('Namespace of the platform.'),
        portalUrl: z =>
          z.string().describe("Link to the platform's page in the portal."),
        entityRef: z =>
          z
            .string()
            .describe(
              'Ref of the catalog Resource that represents the platform.',
            ),
        created: z =>
          z
            .boolean()
            .describe(
              'True when this run created the platform; false on a dry run, without createInCluster, or when an earlier run of the same request had created it.',
            ),
        manifest: z =>
          z
            .string()
            .describe('The InferencePlatform custom resource, as YAML.'),
        phase: z =>
          z
            .string()
            .optional()
            .describe(
              'Phase of the platform when the action ended (with waitForReady).',
            ),
      },
    },
    async handler(ctx) {
      const { input, logger } = ctx;
      const { name, namespace } = input;
      const clusterNames = options.clusterNames ?? ['default'];
      const asked: string | undefined = input.cluster || undefined;
      const cluster: string = asked ?? clusterNames[0];
      if (!clusterNames.includes(cluster)) {
        throw new InputError(
          `Unknown cluster "${cluster}": this portal manages ${clusterNames.join(', ')}`,
        );
      }
      // Names and links carry the cluster only where there are several.
      const named = clusterNames.length > 1 ? cluster : undefined;
      // The runner validates input against the schema; direct callers do not.
      if (
        name.length > PLATFORM_NAME_MAX_LENGTH ||
        !new RegExp(PLATFORM_NAME_PATTERN).test(name)
      ) {
        throw new InputError(
          `Invalid platform name "${name}": use lower-case letters, digits and "-", start with a letter and end with a letter or digit, at most ${PLATFORM_NAME_MAX_LENGTH} characters`,
        );
      }
      const credentials = await ctx.getInitiatorCredentials();
      const [decision] = await options.permissions.authorize(
        [{ permission: inferencePlatformCreatePermission }],
        { credentials },
      );
      if (decision.result !== AuthorizeResult.ALLOW) {
        throw new NotAllowedError(
          `You are not allowed to create inference platforms (${inferencePlatformCreatePermission.name})`,
        );
      }

      const createInCluster = input.createInCluster ?? true;
      const creates = createInCluster && !ctx.isDryRun;
      // Only a platform this task creates carries the task's id: a manifest
      // for a repository, or from a dry run, would carry a meaningless one.
      const platform = buildPlatform(input, {
        taskId: creates ? ctx.task.id : undefined,
      });
      const label = `InferencePlatform ${named ? `${named}/` : ''}${namespace}/${name}`;
      const portalUrl = `${options.appBaseUrl.replace(
        /\/$/,
        '',
      )}${platformPagePath(namespace, name, named)}`;
      ctx.output('cluster', cluster);
      ctx.output('name', name);
      ctx.output('namespace', namespace);
      ctx.output('portalUrl', portalUrl);
      ctx.output('entityRef', platformEntityRef(namespace, name, named));
      ctx.output(
        'manifest',
        yaml.dump(platform, { lineWidth: -1, noRefs: true }),
      );

      const creator = new PlatformCreator(
        options.kubeClient(asked === undefined ? undefined : cluster),
      );
      if (!creates) {
        const { exists } = await creator.validate(platform);
        logger.info(
          `The API server accepted ${label} in a server-side dry run; nothing was created${
            ctx.isDryRun
              ? ' (scaffolder dry run)'
              : ' (createInCluster is false)'
          }`,
        );
        if (exists && createInCluster) {
          logger.warn(
            `${label} already exists: a real run succeeds only if it has the same owner and spec`,
          );
        }
        ctx.output('created', false);
        return;
      }

      const { created } = await ctx.checkpoint({
        key: `create-${namespace}-${name}`,
        fn: async () => {
          const result = await creator.createOnce(platform, ctx.task.id);
          return {
            created: result.created,
            uid: result.platform.metadata.uid ?? '',
          };
        },
      });
      logger.info(
        created
          ? `Created ${label}`
          : `${label} already exists from an earlier run of this request; not creating it again`,
      );
      ctx.output('created', created);

      if (!input.waitForReady) return;
      const timeoutSeconds = input.timeoutSeconds ?? 600;
      logger.info(
        `Waiting up to ${timeoutSeconds} s for ${label} to become Ready`,
      );
      try {
        const ready = await waitForReady({
          read: () => creator.get(platform),
          timeoutMs: timeoutSeconds * 1000,
          intervalMs: options.waitIntervalMs,
          failedGraceMs: options.failedGraceMs,
          log: line => logger.info(`${label}: ${line}`),
          signal: ctx.signal,
        });
        ctx.output('phase', ready.status!.phase!);
        logger.info(`${label} is Ready: ${portalUrl}`);
      } catch (e) {
        if (ctx.signal?.aborted) throw e;
        throw new Error(
          `${label} was created but did not become Ready: ${
            e instanceof Error ? e.message : e
          }. The operator keeps reconciling it; follow it at ${portalUrl}`,
        );
      }
    },
  });
}
