import {
  AuthService,
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
import { KubeApiError, Operator } from '@cv-platform/operator';
import {
  API_VERSION,
  CATALOG_ENTITY_ANNOTATION,
  createPlatformRequestSchema,
  inferencePlatformCreatePermission,
  inferencePlatformDeletePermission,
  inferencePlatformReadPermission,
  inferencePlatformUpdatePermission,
  KIND,
  OWNER_ANNOTATION,
  patchPlatformRequestSchema,
  PLURAL,
} from '@cv-platform/plugin-inference-platform-common';
import express from 'express';
import Router from 'express-promise-router';
import { z } from 'zod';
import { Registry } from 'prom-client';
import { PlatformFeed } from './PlatformFeed';
import { processMetrics } from './processMetrics';
import { platformDetail, platformSummary } from './summaries';

export interface RouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  auth?: AuthService;
  permissions: PermissionsService;
  operator?: Operator;
  unavailableReason?: string;
  feed?: PlatformFeed;
}

const platformPath = (ns: string, name?: string) =>
  `/apis/${API_VERSION}/namespaces/${encodeURIComponent(ns)}/${PLURAL}${name ? `/${encodeURIComponent(name)}` : ''}`;

/** Kubernetes API errors as Backstage errors, keeping the API server's message. */
function translate(e: unknown): never {
  if (e instanceof KubeApiError) {
    const message = e.body?.message ?? e.message;
    if (e.statusCode === 400 || e.statusCode === 422) throw new InputError(message);
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
      r.error.issues.map(i => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    );
  }
  return r.data;
}

export async function createRouter(o: RouterOptions): Promise<express.Router> {
  const router = Router();
  router.use(express.json({ limit: '256kb' }));

  router.get('/health', (_req, res) => {
    res.json({
      status: 'ok',
      operator: o.operator
        ? { synced: o.operator.hasSynced(), leader: o.operator.isLeader() }
        : { unavailable: o.unavailableReason },
    });
  });

  // Prometheus scrapes this with a Backstage credential (e.g. a static
  // externalAccess token); the embedded operator's metrics and this
  // process's own (heap, RSS, event-loop lag) in one exposition.
  const metrics = o.operator ? Registry.merge([o.operator.metrics.registry, processMetrics()]) : processMetrics();
  router.get('/metrics', async (req, res) => {
    await o.httpAuth.credentials(req);
    res.setHeader('Content-Type', metrics.contentType);
    res.end(await metrics.metrics());
  });

  const requireOperator = (): Operator => {
    if (!o.operator) throw new ServiceUnavailableError(o.unavailableReason ?? 'no cluster configured');
    if (!o.operator.hasSynced()) throw new ServiceUnavailableError('still loading platforms from the cluster; retry shortly');
    return o.operator;
  };

  const authorizeRead = async (req: express.Request) => {
    const credentials = await o.httpAuth.credentials(req);
    const [decision] = await o.permissions.authorize(
      [{ permission: inferencePlatformReadPermission }],
      { credentials },
    );
    if (decision.result !== AuthorizeResult.ALLOW) throw new NotAllowedError('not allowed to read inference platforms');
  };

  const authorizeOne = async (
    req: express.Request,
    permission: typeof inferencePlatformUpdatePermission,
    ns: string,
    name: string,
  ) => {
    const credentials = await o.httpAuth.credentials(req);
    const [decision] = await o.permissions.authorize(
      [{ permission, resourceRef: `${ns}/${name}` }],
      { credentials },
    );
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError(`not allowed to ${permission.attributes.action} ${ns}/${name}`);
    }
  };

  router.get('/platforms', async (req, res) => {
    const op = requireOperator();
    await authorizeRead(req);
    const items = op.platforms().map(p => platformSummary(op, p));
    items.sort((a, b) =>
      `${a.platform.metadata.namespace}/${a.platform.metadata.name}`.localeCompare(
        `${b.platform.metadata.namespace}/${b.platform.metadata.name}`,
      ),
    );
    res.json({ items });
  });

  router.get('/platforms/:namespace/:name', async (req, res) => {
    const op = requireOperator();
    const { namespace, name } = req.params;
    await authorizeRead(req);
    const p = op.platform(namespace, name);
    if (!p) throw new NotFoundError(`inference platform ${namespace}/${name} not found`);
    res.json(await platformDetail(op, p));
  });

  router.post('/platforms', async (req, res) => {
    const op = requireOperator();
    const body = parse(createPlatformRequestSchema, req.body);
    const credentials = await o.httpAuth.credentials(req);
    const [decision] = await o.permissions.authorize([{ permission: inferencePlatformCreatePermission }], { credentials });
    if (decision.result !== AuthorizeResult.ALLOW) throw new NotAllowedError('not allowed to create inference platforms');
    const annotations: Record<string, string> = {};
    if (body.owner) annotations[OWNER_ANNOTATION] = body.owner;
    if (body.entityRef) annotations[CATALOG_ENTITY_ANNOTATION] = body.entityRef;
    const cr = {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: body.name, namespace: body.namespace, annotations },
      spec: body.spec,
    };
    const created = await op.client.request('POST', platformPath(body.namespace), cr).catch(translate);
    o.logger.info('Created InferencePlatform', { name: body.name, namespace: body.namespace });
    res.status(201).json(created);
  });

  router.patch('/platforms/:namespace/:name', async (req, res) => {
    const op = requireOperator();
    const { namespace, name } = req.params;
    const body = parse(patchPlatformRequestSchema, req.body);
    await authorizeOne(req, inferencePlatformUpdatePermission, namespace, name);
    const patched = await op.client
      .mergePatch(platformPath(namespace, name), { spec: body })
      .catch(translate);
    o.logger.info('Updated InferencePlatform', { name, namespace, change: JSON.stringify(body) });
    res.json(patched);
  });

  router.delete('/platforms/:namespace/:name', async (req, res) => {
    const op = requireOperator();
    const { namespace, name } = req.params;
    await authorizeOne(req, inferencePlatformDeletePermission, namespace, name);
    await op.client.delete(platformPath(namespace, name)).catch(translate);
    o.logger.info('Deleted InferencePlatform', { name, namespace });
    res.status(204).end();
  });

  router.get('/events', async (req, res) => {
    requireOperator();
    await authorizeRead(req);
    if (!o.feed) throw new ServiceUnavailableError('live feed unavailable');
    o.feed.connect(req, res);
  });

  return router;
}
