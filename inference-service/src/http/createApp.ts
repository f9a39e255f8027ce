import express, { NextFunction, Request, Response } from 'express';
import { Embedder, ModelNotReadyError } from '../inference/Embedder';
import { QueueFullError } from '../inference/Batcher';
import { ImageDecodeError } from '../inference/decodeImage';
import { Metrics } from '../metrics/createMetrics';
import {
  DimensionMismatchError,
  PayloadFilter,
  VectorStore,
} from '../vectorstore/VectorStore';
import { HttpError } from './HttpError';
import { parseImageRequest } from './parseImageRequest';
import { ForwardWrite } from './forwardWrites';
import {
  parseFetchableUrl,
  parseId,
  parseJsonObject,
  parsePayload,
} from './requestFields';
import { indexBatch } from './indexBatch';

export interface Readiness {
  ready: boolean;
  reasons: string[];
  model?: {
    version: number;
    dim: number;
    source: string;
    /** The model's URL (for a file the model-loader fetched, the URL it came from). */
    url?: string;
    /** Where the model runs: cuda, or cpu (with the reason when CUDA was asked for). */
    executionProvider?: string;
    fallbackReason?: string;
  };
  vectorStore: string;
}

export interface AppDeps {
  embedder: Embedder;
  store: VectorStore;
  metrics: Metrics;
  limits: {
    maxImageBytes: number;
    maxK: number;
    maxInflight: number;
    /** POST /v1/index/batch: points per upsert, items in flight per request. */
    batch?: { upsertBatch: number; window: number };
  };
  readiness: () => Promise<Readiness>;
  reload: (modelUrl?: string) => Promise<object>;
  /** A canary's servers: writes also go to the stable servers. */
  forwardWrite?: ForwardWrite;
  log?: (
    level: 'info' | 'warn' | 'error',
    msg: string,
    fields?: object,
  ) => void;
}

const MULTIPART_SLACK = 64 * 1024;

type Handler = (req: Request, res: Response) => Promise<void>;

/** Wraps an async route so rejections reach the error middleware. */
const route =
  (fn: Handler) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };

function parseFilter(value: string | undefined): PayloadFilter | undefined {
  const filter = parseJsonObject(value, 'filter');
  if (!filter) return undefined;
  for (const [k, v] of Object.entries(filter)) {
    if (!['string', 'number', 'boolean'].includes(typeof v)) {
      throw new HttpError(
        400,
        'invalid_filter',
        `filter.${k} must be a string, number or boolean (exact match)`,
      );
    }
  }
  return filter as PayloadFilter;
}

function parseK(value: string | undefined, maxK: number): number {
  if (value === undefined || value === '') return Math.min(10, maxK);
  const k = Number(value);
  if (!Number.isInteger(k) || k < 1 || k > maxK) {
    throw new HttpError(
      400,
      'invalid_k',
      `k must be an integer between 1 and ${maxK}, got ${JSON.stringify(
        value,
      )}`,
    );
  }
  return k;
}

function sendError(
  res: Response,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return;
  res.set(headers).status(status).json({ error: { code, message } });
}

/**
 * The HTTP API. Everything stateful comes in through `deps`, so tests drive
 * it with supertest and no listening port.
 */
export function createApp(deps: AppDeps): express.Express {
  const { embedder, store, metrics, limits } = deps;
  const app = express();
  app.disable('x-powered-by');

  app.use((req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const labels = {
        method: req.method,
        route: req.route?.path
          ? `${req.baseUrl}${req.route.path}`
          : 'unmatched',
        status: String(res.statusCode),
      };
      end(labels);
      metrics.httpRequests.inc(labels);
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get(
    '/readyz',
    route(async (_req, res) => {
      const r = await deps.readiness();
      res
        .status(r.ready ? 200 : 503)
        .json(r.ready ? r : { ...r, reason: r.reasons.join('; ') });
    }),
  );

  app.get(
    '/metrics',
    route(async (_req, res) => {
      res
        .set('Content-Type', metrics.registry.contentType)
        .send(await metrics.registry.metrics());
    }),
  );

  // Shed load before reading bodies: memory stays bounded by
  // maxInflight x (maxImageBytes + decoded bitmap).
  let inflight = 0;
  const admit = (_req: Request, res: Response, next: NextFunction) => {
    if (inflight >= limits.maxInflight) {
      metrics.imagesRejected.inc({ reason: 'overloaded' });
      sendError(
        res,
        503,
        'overloaded',
        'too many requests in flight, retry later',
        { 'Retry-After': '1' },
      );
      return;
    }
    inflight++;
    let done = false;
    const leave = () => {
      if (!done) inflight -= 1;
      done = true;
    };
    res.on('finish', leave);
    res.on('close', leave);
    next();
  };
  const body = express.raw({
    type: () => true,
    limit: limits.maxImageBytes + MULTIPART_SLACK,
  });
  const image = [admit, body];

  const embed = async (req: Request) => {
    const parsed = await parseImageRequest(req, limits.maxImageBytes);
    const embedding = await embedder.embed(parsed.image);
    return { ...parsed, ...embedding };
  };

  app.post(
    '/v1/embed',
    image,
    route(async (req, res) => {
      const { vector, modelVersion } = await embed(req);
      if (
        req.accepts(['application/json', 'application/octet-stream']) ===
        'application/octet-stream'
      ) {
        // Little-endian float32, for clients that do not want 20 kB of JSON.
        res
          .set({
            'Content-Type': 'application/octet-stream',
            'X-Embedding-Dim': String(vector.length),
            'X-Model-Version': String(modelVersion),
          })
          .send(
            Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
          );
        return;
      }
      res.json({
        dim: vector.length,
        vector: Array.from(vector),
        model: { version: modelVersion },
      });
    }),
  );

  app.post(
    '/v1/index',
    image,
    route(async (req, res) => {
      const parsed = await parseImageRequest(req, limits.maxImageBytes);
      const id = parseId(parsed.fields.id);
      const payload = parsePayload(parsed.fields.payload);
      const { vector, modelVersion } = await embedder.embed(parsed.image);
      await storeCall(() => store.upsert({ id, vector, payload }));
      await deps.forwardWrite?.({
        method: 'POST',
        // The id and payload may be query parameters.
        path: req.originalUrl,
        body: req.body,
        contentType: req.get('content-type'),
      });
      res.json({
        id,
        upserted: true,
        dim: vector.length,
        model: { version: modelVersion },
      });
    }),
  );

  app.post(
    '/v1/index/batch',
    admit,
    route(
      indexBatch({
        embedder,
        store,
        metrics,
        maxImageBytes: limits.maxImageBytes,
        upsertBatch: limits.batch?.upsertBatch ?? 64,
        window: limits.batch?.window ?? 32,
        forwardWrite: deps.forwardWrite,
      }),
    ),
  );

  app.post(
    '/v1/search',
    image,
    route(async (req, res) => {
      const total = metrics.searchStageSeconds.startTimer({ stage: 'total' });
      const parsed = await parseImageRequest(req, limits.maxImageBytes);
      const k = parseK(parsed.fields.k, limits.maxK);
      const filter = parseFilter(parsed.fields.filter);
      const { vector, modelVersion, decodeSeconds, embedSeconds } =
        await embedder.embed(parsed.image);
      const query = metrics.searchStageSeconds.startTimer({
        stage: 'vector_store',
      });
      const results = await storeCall(() => store.search(vector, k, filter));
      query();
      metrics.searchStageSeconds.observe({ stage: 'decode' }, decodeSeconds);
      metrics.searchStageSeconds.observe({ stage: 'embed' }, embedSeconds);
      total();
      res.json({ k, results, model: { version: modelVersion } });
    }),
  );

  app.delete(
    '/v1/points/:id',
    route(async (req, res) => {
      const id = parseId(req.params.id);
      let deleted = await storeCall(() => store.delete(id));
      if (deps.forwardWrite) {
        const there = await deps.forwardWrite({
          method: 'DELETE',
          path: `/v1/points/${encodeURIComponent(id)}`,
        });
        deleted ||= there;
      }
      if (!deleted)
        throw new HttpError(
          404,
          'point_not_found',
          `no point with id ${JSON.stringify(id)}`,
        );
      res.json({ id, deleted: true });
    }),
  );

  // An admin call (the operator's hot reload): restrict who reaches the
  // port, e.g. with a NetworkPolicy, as for any endpoint that fetches a URL.
  app.post(
    '/v1/model/reload',
    express.json({ limit: '16kb' }),
    route(async (req, res) => {
      // The URL a reload may name: what the model-loader fetches, never a local path.
      res.json(
        await deps.reload(
          parseFetchableUrl(req.body?.modelUrl, 'invalid_model_url', 'modelUrl'),
        ),
      );
    }),
  );

  app.use((_req, _res, next) =>
    next(new HttpError(404, 'not_found', 'no such endpoint')),
  );

  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  app.use((err: any, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HttpError) {
      if (err.status === 413) metrics.imagesRejected.inc({ reason: err.code });
      sendError(res, err.status, err.code, err.message, err.headers);
    } else if (err instanceof ImageDecodeError) {
      metrics.imagesRejected.inc({ reason: err.code });
      sendError(
        res,
        err.code === 'image_dimensions_too_large' ? 413 : 422,
        err.code,
        err.message,
      );
    } else if (err instanceof QueueFullError) {
      metrics.imagesRejected.inc({ reason: 'queue_full' });
      sendError(res, 503, 'queue_full', err.message, { 'Retry-After': '1' });
    } else if (err instanceof ModelNotReadyError) {
      sendError(res, 503, 'model_not_ready', err.message, {
        'Retry-After': '5',
      });
    } else if (err?.type === 'entity.too.large') {
      metrics.imagesRejected.inc({ reason: 'payload_too_large' });
      sendError(
        res,
        413,
        'payload_too_large',
        `request body exceeds the limit of ${limits.maxImageBytes} bytes`,
      );
    } else if (
      typeof err?.status === 'number' &&
      err.status >= 400 &&
      err.status < 500
    ) {
      // body-parser errors (aborted request, bad encoding, ...)
      sendError(
        res,
        err.status,
        err.type ? String(err.type).replace(/\W/g, '_') : 'bad_request',
        err.message,
      );
    } else {
      deps.log?.('error', 'request failed', {
        error: err?.stack ?? String(err),
      });
      sendError(res, 500, 'internal_error', 'internal error');
    }
  });

  return app;
}

/** Store failures are the dependency's fault, not the client's: 503. */
async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof DimensionMismatchError)
      throw new HttpError(500, 'dimension_mismatch', err.message);
    throw new HttpError(
      503,
      'vector_store_unavailable',
      `vector store error: ${(err as Error).message}`,
      { 'Retry-After': '5' },
    );
  }
}
