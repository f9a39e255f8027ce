import { forwardWrites } from '../http/forwardWrites';
import express from 'express';
import { ServiceConfig } from '../config/loadConfig';
import { Embedder } from '../inference/Embedder';
import { createApp, Readiness } from '../http/createApp';
import { HttpError } from '../http/HttpError';
import { createMetrics, Metrics } from '../metrics/createMetrics';
import { ModelManager, ModelRejectedError } from '../model/ModelManager';
import { LocalVectorStore } from '../vectorstore/LocalVectorStore';
import { QdrantVectorStore } from '../vectorstore/QdrantVectorStore';
import {
  DimensionMismatchError,
  VectorStore,
} from '../vectorstore/VectorStore';
import { Logger } from './createLogger';

export interface Service {
  app: express.Express;
  models: ModelManager;
  store: VectorStore;
  metrics: Metrics;
  /**
   * Settles once: resolves when the first model is serving and the
   * collection is ready; rejects on a fatal startup error (dimension
   * mismatch). Transient failures keep it pending while they are retried.
   */
  started: Promise<void>;
  readiness(): Promise<Readiness>;
  /** Loads `modelUrl` (or the current model again) beside the serving one and swaps it in. */
  reload(modelUrl?: string): Promise<ReloadResult>;
  /** From now on /readyz says not ready ("shutting down"); requests are still served. */
  beginShutdown(): void;
  close(): Promise<void>;
}

export interface ReloadResult {
  version: number;
  dim: number;
  source: string;
  url: string;
  loadSeconds: number;
}

export interface ServiceOverrides {
  store?: VectorStore;
  log?: Logger;
}

const HEALTH_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} timed out after ${ms} ms`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Wires config, model, store and HTTP API together, without listening. */
export function createService(
  config: ServiceConfig,
  overrides: ServiceOverrides = {},
): Service {
  const log: Logger = overrides.log ?? (() => {});
  const metrics = createMetrics();
  const store: VectorStore =
    overrides.store ??
    (config.qdrant
      ? new QdrantVectorStore({
          url: config.qdrant.url,
          apiKey: config.qdrant.apiKey,
          collection: config.collection,
          replicationFactor: config.qdrant.replicationFactor,
        })
      : new LocalVectorStore({
          collection: config.collection,
          path: config.localStorePath,
        }));

  const models = new ModelManager({
    modelUrl: config.modelUrl,
    workers: config.workers,
    executionProvider: config.executionProvider,
    batch: config.batch,
    preprocess: config.preprocess,
    size: config.preprocess.size,
    embeddingOutput: config.embeddingOutput,
    fetch: { cacheDir: config.modelCacheDir, s3: config.s3 },
    retry: config.modelRetry,
    metrics,
    log,
  });

  const collection: { dim?: number; error?: string; ensuring?: boolean } = {};
  let closed = false;
  let settle: { resolve: () => void; reject: (e: Error) => void };
  const started = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Callers that never await `started` must not see an unhandled rejection.
  started.catch(() => undefined);

  models.setValidator(spec => {
    const expected = collection.dim ?? models.current?.spec.dim;
    if (expected !== undefined && spec.dim !== expected) {
      throw new ModelRejectedError(
        `new model produces ${spec.dim}-d embeddings but collection "${config.collection}" holds ${expected}-d vectors`,
      );
    }
  });

  const ensureCollection = async (dim: number) => {
    if (collection.dim !== undefined || collection.ensuring) return;
    collection.ensuring = true;
    for (let attempt = 0; !closed; attempt++) {
      try {
        await store.ensureCollection(dim);
        collection.dim = dim;
        collection.error = undefined;
        log('info', 'collection ready', {
          collection: config.collection,
          dim,
          store: store.kind,
        });
        settle.resolve();
        break;
      } catch (err) {
        if (err instanceof DimensionMismatchError) {
          collection.error = err.message;
          log('error', 'collection does not match the model', {
            error: err.message,
          });
          settle.reject(err);
          break;
        }
        collection.error = `vector store unreachable: ${
          (err as Error).message
        }`;
        const delay = Math.min(
          config.modelRetry.maxMs,
          config.modelRetry.initialMs * 2 ** attempt,
        );
        log('warn', 'vector store not ready, retrying', {
          error: (err as Error).message,
          retryInMs: delay,
        });
        await new Promise(r => setTimeout(r, delay));
      }
    }
    collection.ensuring = false;
  };
  models.onLoaded(m => {
    ensureCollection(m.spec.dim).catch(err =>
      log('error', 'ensureCollection crashed', { error: String(err) }),
    );
  });

  let shuttingDown = false;
  const readiness = async (): Promise<Readiness> => {
    const reasons: string[] = [];
    if (shuttingDown) reasons.push('shutting down');
    const modelReason = models.notReadyReason;
    if (modelReason) reasons.push(modelReason);
    if (collection.dim === undefined) {
      reasons.push(
        collection.error ?? 'vector store collection not initialised yet',
      );
    } else {
      try {
        await withTimeout(
          store.health(),
          HEALTH_TIMEOUT_MS,
          'vector store health check',
        );
      } catch (err) {
        reasons.push(`vector store unreachable: ${(err as Error).message}`);
      }
    }
    const m = models.current;
    return {
      ready: reasons.length === 0,
      reasons,
      model: m
        ? {
            version: m.version,
            dim: m.spec.dim,
            source: m.source,
            url: m.url,
            executionProvider: m.executionProvider,
            ...(m.fallbackReason ? { fallbackReason: m.fallbackReason } : {}),
          }
        : undefined,
      vectorStore: store.kind,
    };
  };

  const reload = async (modelUrl?: string): Promise<ReloadResult> => {
    try {
      const m = await models.reload(modelUrl);
      return {
        version: m.version,
        dim: m.spec.dim,
        source: m.source,
        url: m.url,
        loadSeconds: m.loadSeconds,
      };
    } catch (err) {
      if (err instanceof ModelRejectedError)
        throw new HttpError(409, 'model_rejected', err.message);
      throw new HttpError(
        500,
        'model_reload_failed',
        `reload failed, still serving the previous model: ${
          (err as Error).message
        }`,
      );
    }
  };

  const embedder = new Embedder(models, {
    maxPixels: config.limits.maxImagePixels,
    resize: config.preprocess.resize,
    decodeConcurrency: config.limits.decodeConcurrency,
  });
  const app = createApp({
    embedder,
    store,
    metrics,
    limits: {
      maxImageBytes: config.limits.maxImageBytes,
      maxK: config.limits.maxK,
      maxInflight: config.batch.maxQueue + config.limits.decodeConcurrency,
    },
    readiness,
    reload,
    log,
    forwardWrite: config.writeForwardUrl
      ? forwardWrites(config.writeForwardUrl)
      : undefined,
  });

  models.start();

  return {
    app,
    models,
    store,
    metrics,
    started,
    readiness,
    reload,
    beginShutdown() {
      shuttingDown = true;
    },
    async close() {
      closed = true;
      await models.close();
      await store.close();
    },
  };
}
