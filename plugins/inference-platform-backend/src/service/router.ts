import {
  AuditorService,
  AuthService,
  BackstageCredentials,
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import {
  ConflictError,
  InputError,
  NotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
} from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  KubeApiError,
  LABEL_PLATFORM,
  Operator,
  resourcePath,
  Resources,
} from '@cv-platform/operator';
import {
  API_VERSION,
  API_VERSION_V1BETA1,
  BACKUP_REQUESTED_ANNOTATION,
  BackupRequested,
  CATALOG_ENTITY_ANNOTATION,
  ClusterList,
  createPlatformRequestSchema,
  createRestoreRequestSchema,
  InferencePlatformV1beta1,
  inferencePlatformBackupCreatePermission,
  inferencePlatformCreatePermission,
  inferencePlatformDeletePermission,
  inferencePlatformReadPermission,
  InferencePlatformRestore,
  inferencePlatformRestoreCreatePermission,
  inferencePlatformLogsReadPermission,
  inferencePlatformUpdatePermission,
  KIND,
  OWNER_ANNOTATION,
  patchPlatformRequestSchema,
  PlatformListResponse,
  PlatformSummary,
  PLURAL,
  RESTORE_KIND,
  RESTORE_PLURAL,
  RestoreList,
} from '@cv-platform/plugin-inference-platform-common';
import express, { Request, Response } from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { Registry } from 'prom-client';
import { FeedScope, PlatformFeed } from './PlatformFeed';
import { operatorMetrics } from './operatorMetrics';
import {
  childRefs,
  containerNames,
  forYaml,
  platformDetail,
  platformSummary,
} from './summaries';

/** One managed cluster, as the router serves it. */
export interface RouterCluster {
  name: string;
  /** Meant where a request names no cluster. */
  default: boolean;
  operator?: Operator;
  unavailableReason?: string;
  feed?: PlatformFeed;
}

export interface RouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  auth?: AuthService;
  permissions: PermissionsService;
  /** Audits every write; absent in tests that do not look. */
  auditor?: AuditorService;
  /** Every managed cluster, the default first. */
  clusters: RouterCluster[];
}

/**
 * The resource ref of one platform for the permission framework:
 * `<namespace>/<name>` on the default cluster, `<cluster>/<namespace>/<name>`
 * on another.
 */
export function platformResourceRef(
  cluster: RouterCluster,
  namespace: string,
  name: string,
): string {
  return cluster.default
    ? `${namespace}/${name}`
    : `${cluster.name}/${namespace}/${name}`;
}

/** The webhook's state without its error text (this route is unauthenticated). */
function conversionWebhookHealth(operator: Operator) {
  const w = operator.conversionWebhook?.status();
  return w
    ? {
        conversionWebhook: {
          serving: w.serving,
          crdConfigured: w.crdConfigured,
          certificateNotAfter: w.certificateNotAfter,
        },
      }
    : {};
}

const platformPath = (ns: string, name?: string) =>
  `/apis/${API_VERSION_V1BETA1}/namespaces/${encodeURIComponent(ns)}/${PLURAL}${
    name ? `/${encodeURIComponent(name)}` : ''
  }`;

const restoresPath = (ns: string) =>
  `/apis/${API_VERSION}/namespaces/${encodeURIComponent(ns)}/${RESTORE_PLURAL}`;

/** A missing InferencePlatformRestore CRD answers 404 for the whole collection; say so. */
function translateRestores(e: unknown): never {
  if (
    e instanceof KubeApiError &&
    e.statusCode === 404 &&
    !e.body?.details?.name
  ) {
    throw new NotFoundError(
      `the cluster does not serve ${RESTORE_PLURAL}.cv.platform.tech: install its CRD (deploy/crds/${RESTORE_PLURAL}.cv.platform.tech.yaml)`,
    );
  }
  return translate(e);
}

/** Newest first; the name breaks ties within a second. */
function newestFirst(a: InferencePlatformRestore, b: InferencePlatformRestore) {
  return (
    (b.metadata.creationTimestamp ?? '').localeCompare(
      a.metadata.creationTimestamp ?? '',
    ) || (b.metadata.name ?? '').localeCompare(a.metadata.name ?? '')
  );
}

/** Kubernetes API errors as Backstage errors, keeping the API server's message. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The feed's scope from its query: `namespace`, or `platform` as `<namespace>/<name>`. */
export function parseFeedScope(query: Record<string, unknown>): FeedScope {
  const { namespace, platform } = query;
  if (
    namespace !== undefined &&
    (typeof namespace !== 'string' || !DNS_LABEL.test(namespace))
  ) {
    throw new InputError('namespace must be a Kubernetes namespace name');
  }
  if (platform === undefined) return namespace ? { namespace } : {};
  const [ns, name, ...rest] =
    typeof platform === 'string' ? platform.split('/') : [];
  if (
    !ns ||
    !name ||
    rest.length ||
    !DNS_LABEL.test(ns) ||
    !/^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(name)
  ) {
    throw new InputError('platform must be <namespace>/<name>');
  }
  if (namespace !== undefined && namespace !== ns)
    throw new InputError(
      `platform ${platform} is not in namespace ${namespace}`,
    );
  return { namespace: ns, name };
}

function translate(e: unknown): never {
  if (e instanceof KubeApiError) {
    const message = e.body?.message ?? e.message;
    if (e.statusCode === 400 || e.statusCode === 422)
      throw new InputError(message);
    if (e.statusCode === 404) throw new NotFoundError(message);
    if (e.statusCode === 409) throw new ConflictError(message);
    if (e.statusCode === 403) throw new NotAllowedError(message);
  }
  throw e;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    throw new InputError(
      r.error.issues
        .map(i => `${i.path.join('.') || 'body'}: ${i.message}`)
        .join('; '),
    );
  }
  return r.data;
}

export async function createRouter(o: RouterOptions): Promise<express.Router> {
  const router = Router();
  router.use(express.json({ limit: '256kb' }));

  // Unauthenticated: it says whether the operator runs, never why not (the
  // reason, which may quote a configuration error, is in the backend's log).
  // Every write is an audit event (who, what, which platform, outcome).
  const audited =
    (
      eventId: string,
      severityLevel: 'medium' | 'high',
      handler: (req: Request, res: Response) => Promise<void>,
    ) =>
    async (req: Request, res: Response) => {
      const event = await o.auditor?.createEvent({
        eventId,
        severityLevel,
        request: req,
        meta: {
          cluster:
            (typeof req.query.cluster === 'string' ? req.query.cluster : undefined) ??
            (typeof req.body?.cluster === 'string' ? req.body.cluster : undefined) ??
            null,
          namespace: req.params.namespace ?? req.body?.namespace ?? null,
          name: req.params.name ?? req.body?.name ?? null,
        },
      });
      try {
        await handler(req, res);
        await event?.success({ meta: { status: res.statusCode } });
      } catch (e) {
        await event?.fail({
          error: e instanceof Error ? e : new Error(String(e)),
        });
        throw e;
      }
    };

  const operatorHealth = (op: Operator | undefined) =>
    op
      ? {
          synced: op.hasSynced(),
          leader: op.isLeader(),
          ...conversionWebhookHealth(op),
        }
      : { available: false };
  router.get('/health', (_req, res) => {
    res.json({
      status: 'ok',
      // The default cluster's.
      operator: operatorHealth(o.clusters[0]?.operator),
      ...(o.clusters.length > 1
        ? {
            clusters: o.clusters.map(c => ({
              name: c.name,
              operator: operatorHealth(c.operator),
            })),
          }
        : {}),
    });
  });

  // Prometheus scrapes this with a Backstage credential (e.g. a static
  // externalAccess token); the embedded operators' metrics and this
  // process's own (heap, RSS, event-loop lag) in one exposition.
  const metrics = operatorMetrics(
    o.clusters.flatMap(c =>
      c.operator ? [{ cluster: c.name, registry: c.operator.metrics.registry }] : [],
    ),
  );
  router.get('/metrics', async (req, res) => {
    await o.httpAuth.credentials(req);
    res.setHeader('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE);
    res.end(await metrics());
  });

  const several = o.clusters.length > 1;
  /** The cluster a request names (`?cluster=`, or `cluster` in a create's body); the default without one. */
  const clusterOf = (req: Request): RouterCluster => {
    const named = req.query.cluster ?? (req.method === 'POST' && req.path === '/platforms' ? req.body?.cluster : undefined);
    if (named === undefined) return o.clusters.find(c => c.default) ?? o.clusters[0];
    if (typeof named !== 'string') throw new InputError('cluster must be a cluster name');
    const found = o.clusters.find(c => c.name === named);
    if (!found)
      throw new NotFoundError(
        `no cluster ${named}; this portal manages ${o.clusters.map(c => c.name).join(', ')}`,
      );
    return found;
  };
  const unavailable = (c: RouterCluster): string | undefined => {
    if (!c.operator) return c.unavailableReason ?? 'no cluster configured';
    if (!c.operator.hasSynced())
      return `still loading platforms from ${several ? `cluster ${c.name}` : 'the cluster'}; retry shortly`;
    return undefined;
  };
  const requireCluster = (req: Request): { cluster: RouterCluster; op: Operator } => {
    const cluster = clusterOf(req);
    const reason = unavailable(cluster);
    if (reason) throw new ServiceUnavailableError(reason);
    return { cluster, op: cluster.operator! };
  };
  /** Log fields naming the cluster, when there is more than one. */
  const where = (cluster: RouterCluster) => (several ? { cluster: cluster.name } : {});

  const mayRead = async (credentials: BackstageCredentials) => {
    const [decision] = await o.permissions.authorize(
      [{ permission: inferencePlatformReadPermission }],
      { credentials },
    );
    return decision.result === AuthorizeResult.ALLOW;
  };

  const authorizeRead = async (req: express.Request) => {
    const credentials = await o.httpAuth.credentials(req);
    if (!(await mayRead(credentials)))
      throw new NotAllowedError('not allowed to read inference platforms');
    return credentials;
  };

  const authorizeOne = async (
    req: express.Request,
    permission: typeof inferencePlatformUpdatePermission,
    cluster: RouterCluster,
    ns: string,
    name: string,
    /** What is refused, e.g. "back up"; default the permission's action. */
    verb: string = permission.attributes.action ?? permission.name,
  ) => {
    const credentials = await o.httpAuth.credentials(req);
    const resourceRef = platformResourceRef(cluster, ns, name);
    const [decision] = await o.permissions.authorize(
      [{ permission, resourceRef }],
      { credentials },
    );
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError(`not allowed to ${verb} ${resourceRef}`);
    }
    return credentials;
  };

  /** The platform as the API server has it now (writes validate against it, not the cache). */
  const fetchPlatform = async (
    op: Operator,
    ns: string,
    name: string,
  ): Promise<InferencePlatformV1beta1> =>
    op.client
      .request<InferencePlatformV1beta1>('GET', platformPath(ns, name))
      .catch((e: unknown) => {
        if (e instanceof KubeApiError && e.statusCode === 404) {
          throw new NotFoundError(`inference platform ${ns}/${name} not found`);
        }
        return translate(e);
      });

  /** Who asked, for the log line of a write. */
  const actor = (
    credentials: Awaited<ReturnType<typeof o.httpAuth.credentials>>,
  ) => {
    const p = credentials.principal as {
      type?: string;
      userEntityRef?: string;
      subject?: string;
    };
    return p.userEntityRef ?? p.subject ?? p.type ?? 'unknown';
  };

  router.get('/clusters', async (req, res) => {
    await authorizeRead(req);
    const body: ClusterList = {
      items: o.clusters.map(c => ({
        name: c.name,
        default: c.default,
        available: !unavailable(c),
      })),
    };
    res.json(body);
  });

  // Without ?cluster= every cluster's platforms: one that cannot answer is
  // named in `unavailable` rather than failing the others.
  router.get('/platforms', async (req, res) => {
    const named = req.query.cluster !== undefined;
    const clusters = named ? [requireCluster(req).cluster] : o.clusters;
    const missing = clusters.flatMap(c => {
      const message = unavailable(c);
      return message ? [{ cluster: c.name, message }] : [];
    });
    const answering = clusters.filter(
      c => !missing.some(m => m.cluster === c.name),
    );
    if (!answering.length) {
      throw new ServiceUnavailableError(missing[0]?.message ?? 'no cluster');
    }
    await authorizeRead(req);
    const items = answering.flatMap(c =>
      c.operator!.platforms().map(p => platformSummary(c.operator!, p, c.name)),
    );
    const key = (x: PlatformSummary) =>
      `${x.cluster}/${x.platform.metadata.namespace}/${x.platform.metadata.name}`;
    items.sort((a, b) => key(a).localeCompare(key(b)));
    const body: PlatformListResponse = {
      items,
      ...(missing.length ? { unavailable: missing } : {}),
    };
    res.json(body);
  });

  router.get('/platforms/:namespace/:name', async (req, res) => {
    const { cluster, op } = requireCluster(req);
    const { namespace, name } = req.params;
    await authorizeRead(req);
    const p = op.platform(namespace, name);
    if (!p)
      throw new NotFoundError(
        `inference platform ${namespace}/${name} not found`,
      );
    res.json(await platformDetail(op, p, cluster.name));
  });

  router.post(
    '/platforms',
    audited('platform-create', 'medium', async (req, res) => {
      const { cluster, op } = requireCluster(req);
      const body = parse(createPlatformRequestSchema, req.body);
      const credentials = await o.httpAuth.credentials(req);
      const [decision] = await o.permissions.authorize(
        [{ permission: inferencePlatformCreatePermission }],
        { credentials },
      );
      if (decision.result !== AuthorizeResult.ALLOW)
        throw new NotAllowedError('not allowed to create inference platforms');
      const annotations: Record<string, string> = {};
      if (body.owner) annotations[OWNER_ANNOTATION] = body.owner;
      if (body.entityRef)
        annotations[CATALOG_ENTITY_ANNOTATION] = body.entityRef;
      const cr = {
        apiVersion: API_VERSION_V1BETA1,
        kind: KIND,
        metadata: { name: body.name, namespace: body.namespace, annotations },
        spec: body.spec,
      };
      const created = await op.client
        // Strict: a field the version does not have (a v1alpha1 name, a
        // typo) is refused with its path instead of silently dropped.
        .request('POST', `${platformPath(body.namespace)}?fieldValidation=Strict`, cr)
        .catch(translate);
      o.logger.info('Created InferencePlatform', {
        ...where(cluster),
        name: body.name,
        namespace: body.namespace,
      });
      res.status(201).json(created);
    }),
  );

  router.patch(
    '/platforms/:namespace/:name',
    audited('platform-update', 'medium', async (req, res) => {
      const { cluster, op } = requireCluster(req);
      const { namespace, name } = req.params;
      const body = parse(patchPlatformRequestSchema, req.body);
      await authorizeOne(
        req,
        inferencePlatformUpdatePermission,
        cluster,
        namespace,
        name,
      );
      const patched = await op.client
        .mergePatch(`${platformPath(namespace, name)}?fieldValidation=Strict`, {
          spec: body,
        })
        .catch(translate);
      o.logger.info('Updated InferencePlatform', {
        ...where(cluster),
        name,
        namespace,
        change: JSON.stringify(body),
      });
      res.json(patched);
    }),
  );

  router.delete(
    '/platforms/:namespace/:name',
    audited('platform-delete', 'high', async (req, res) => {
      const { cluster, op } = requireCluster(req);
      const { namespace, name } = req.params;
      await authorizeOne(
        req,
        inferencePlatformDeletePermission,
        cluster,
        namespace,
        name,
      );
      await op.client.delete(platformPath(namespace, name)).catch(translate);
      o.logger.info('Deleted InferencePlatform', { name, namespace });
      res.status(204).end();
    }),
  );

  // "Back up now": the operator takes one backup when this annotation gets a
  // value it has not acted on yet (status.backup.lastRequestHandled).
  router.post(
    '/platforms/:namespace/:name/backups',
    audited('backup-request', 'medium', async (req, res) => {
      const { cluster, op } = requireCluster(req);
      const { namespace, name } = req.params;
      const credentials = await authorizeOne(
        req,
        inferencePlatformBackupCreatePermission,
        cluster,
        namespace,
        name,
        'back up',
      );
      const platform = await fetchPlatform(op, namespace, name);
      if (!platform.spec?.backup) {
        throw new ConflictError(
          `inference platform ${namespace}/${name} has no spec.backup: configure a schedule and an S3 target before backing it up`,
        );
      }
      if (platform.metadata.deletionTimestamp) {
        throw new ConflictError(
          `inference platform ${namespace}/${name} is being deleted`,
        );
      }
      const requestedAt = new Date().toISOString();
      await op.client
        .mergePatch(platformPath(namespace, name), {
          metadata: {
            annotations: { [BACKUP_REQUESTED_ANNOTATION]: requestedAt },
          },
        })
        .catch(translate);
      o.logger.info('Requested a backup of InferencePlatform', {
        ...where(cluster),
        name,
        namespace,
        requestedAt,
        by: actor(credentials),
      });
      const body: BackupRequested = { requestedAt };
      res.status(202).json(body);
    }),
  );

  // One object of the platform as the API server has it now (the caches
  // keep slimmed copies of some kinds), for the YAML view.
  router.get(
    '/platforms/:namespace/:name/objects/:kind/:objectName',
    async (req, res) => {
      const { op } = requireCluster(req);
      const { namespace, name, kind, objectName } = req.params;
      await authorizeRead(req);
      const p = op.platform(namespace, name);
      if (!p)
        throw new NotFoundError(
          `inference platform ${namespace}/${name} not found`,
        );
      const refs = [
        { apiVersion: p.apiVersion, kind: p.kind, name },
        ...childRefs(op, p),
      ];
      const ref = refs.find(r => r.kind === kind && r.name === objectName);
      if (!ref)
        throw new NotFoundError(
          `${kind} ${objectName} is not ${namespace}/${name} or one of its children`,
        );
      const resource = Object.values(Resources).find(
        r => r.kind === ref.kind && r.apiVersion === ref.apiVersion,
      )!;
      const live = await op.client
        .get(resourcePath(resource, namespace, objectName))
        .catch(translate);
      res.json(forYaml(live));
    },
  );

  // Logs of the platform's own pods only, through the pod log endpoint.
  router.get(
    '/platforms/:namespace/:name/pods/:pod/log',
    async (req, res) => {
      const { cluster, op } = requireCluster(req);
      const { namespace, name, pod } = req.params;
      await authorizeOne(
        req,
        inferencePlatformLogsReadPermission,
        cluster,
        namespace,
        name,
        'read the logs of',
      );
      const live = op.caches.pods.get(namespace, pod);
      if (!live || live.metadata.labels?.[LABEL_PLATFORM] !== name)
        throw new NotFoundError(
          `pod ${namespace}/${pod} is not one of ${namespace}/${name}'s pods`,
        );
      const container = String(req.query.container ?? '');
      const names = containerNames(live);
      const containers = [...names.initContainers, ...names.containers];
      if (!containers.includes(container))
        throw new InputError(
          `container must be one of ${containers.join(', ')}`,
        );
      const tail = Number(req.query.tailLines ?? 500);
      if (!Number.isInteger(tail) || tail < 1 || tail > 10_000)
        throw new InputError('tailLines must be an integer from 1 to 10000');
      const query = new URLSearchParams({
        container,
        tailLines: String(tail),
        timestamps: 'true',
        ...(req.query.previous === 'true' ? { previous: 'true' } : {}),
      });
      const text = await op.client
        .request<string>(
          'GET',
          `/api/v1/namespaces/${encodeURIComponent(
            namespace,
          )}/pods/${encodeURIComponent(pod)}/log?${query}`,
        )
        .catch(translate);
      res
        .type('text/plain')
        .send(typeof text === 'string' ? text : JSON.stringify(text));
    },
  );

  router.get('/platforms/:namespace/:name/restores', async (req, res) => {
    const { op } = requireCluster(req);
    const { namespace, name } = req.params;
    await authorizeRead(req);
    if (!op.platform(namespace, name))
      throw new NotFoundError(
        `inference platform ${namespace}/${name} not found`,
      );
    const list = await op.client
      .request<{ items?: InferencePlatformRestore[] }>(
        'GET',
        restoresPath(namespace),
      )
      .catch(translateRestores);
    const items = (list.items ?? [])
      .filter(r => r.spec?.platformName === name)
      .sort(newestFirst);
    const body: RestoreList = { items };
    res.json(body);
  });

  router.post(
    '/platforms/:namespace/:name/restores',
    audited('restore-create', 'high', async (req, res) => {
      const { cluster, op } = requireCluster(req);
      const { namespace, name } = req.params;
      const body = parse(createRestoreRequestSchema, req.body);
      const credentials = await authorizeOne(
        req,
        inferencePlatformRestoreCreatePermission,
        cluster,
        namespace,
        name,
        'restore',
      );
      const platform = await fetchPlatform(op, namespace, name);
      if (platform.metadata.deletionTimestamp) {
        throw new ConflictError(
          `inference platform ${namespace}/${name} is being deleted`,
        );
      }
      const history = platform.status?.backup?.history ?? [];
      const succeeded = history.filter(b => b.result === 'Succeeded');
      const backup = succeeded.find(b => b.id === body.backupId);
      if (!backup) {
        const known = history.find(b => b.id === body.backupId);
        const reason = known
          ? `backup ${body.backupId} of ${namespace}/${name} did not succeed (${
              known.result
            }${known.message ? `: ${known.message}` : ''})`
          : `${namespace}/${name} has no backup ${body.backupId}`;
        const choices = succeeded.length
          ? `successful backups: ${succeeded.map(b => b.id).join(', ')}`
          : 'it has no successful backup in status.backup.history';
        throw new InputError(`${reason}; ${choices}`);
      }
      // Older records may lack the collection list; the operator checks those.
      const inBackup = backup.collections?.map(c => c.name) ?? [];
      const missing = backup.collections
        ? (body.collections ?? []).filter(c => !inBackup.includes(c))
        : [];
      if (missing.length) {
        throw new InputError(
          `backup ${backup.id} has no collection ${missing.join(
            ', ',
          )}; it holds ${
            inBackup.length ? inBackup.join(', ') : 'no collections'
          }`,
        );
      }
      // Not typed InferencePlatformRestore: its ObjectMeta has no generateName.
      const restore = {
        apiVersion: API_VERSION,
        kind: RESTORE_KIND,
        metadata: {
          // The API server appends a random suffix and retries on a clash.
          generateName: `${name}-restore-`,
          namespace,
          // Deleted with its platform by the garbage collector.
          ownerReferences: [
            {
              apiVersion: API_VERSION_V1BETA1,
              kind: KIND,
              name,
              uid: platform.metadata.uid!,
            },
          ],
        },
        spec: {
          platformName: name,
          backupId: backup.id,
          ...(body.collections ? { collections: body.collections } : {}),
        },
      };
      const created = await op.client
        .request<InferencePlatformRestore>(
          'POST',
          restoresPath(namespace),
          restore,
        )
        .catch(translateRestores);
      o.logger.info('Created InferencePlatformRestore', {
        ...where(cluster),
        name: created.metadata.name,
        namespace,
        platform: name,
        backup: backup.id,
        collections: body.collections?.join(',') ?? 'all',
        by: actor(credentials),
      });
      res.status(201).json(created);
    }),
  );

  // ?namespace=ns or ?platform=ns/name narrow the feed (an entity card
  // follows one platform). Read permission is asked again while it lasts.
  router.get('/events', async (req, res) => {
    const { cluster } = requireCluster(req);
    const scope = parseFeedScope(req.query);
    const credentials = await authorizeRead(req);
    if (!cluster.feed) throw new ServiceUnavailableError('live feed unavailable');
    cluster.feed.connect(req, res, {
      scope,
      expiresAt: credentials.expiresAt,
      mayRead: () => mayRead(credentials),
    });
  });

  return router;
}
