import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const triple = z.tuple([z.number(), z.number(), z.number()]);

/** Parses "a,b,c" (env) or [a,b,c] (config file) into three numbers. */
const numberTriple = z.preprocess(
  v => (typeof v === 'string' ? v.split(',').map(s => Number(s.trim())) : v),
  triple,
);

/** "224" or "224x192" (height x width) or [h, w]. */
const sizePair = z.preprocess(v => {
  if (typeof v === 'number') return [v, v];
  if (typeof v === 'string') {
    const parts = v
      .toLowerCase()
      .split('x')
      .map(s => Number(s.trim()));
    return parts.length === 1 ? [parts[0], parts[0]] : parts;
  }
  return v;
}, z.tuple([z.number().int().positive(), z.number().int().positive()]));

const int = (min: number) => z.coerce.number().int().min(min);

const boolish = z.preprocess(
  v =>
    typeof v === 'string' ? ['1', 'true', 'yes'].includes(v.toLowerCase()) : v,
  z.boolean(),
);

/** Keys mirror the environment variables; the operator sets these names. */
const schema = z.object({
  MODEL_URL: z.string().min(1).optional(),
  MODEL_PATH: z.string().min(1).optional(),
  PORT: int(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  QDRANT_URL: z.string().url().optional(),
  QDRANT_API_KEY: z.string().optional(),
  QDRANT_COLLECTION: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,255}$/)
    .default('images'),
  QDRANT_REPLICATION_FACTOR: int(1).max(100).optional(),
  BATCH_MAX_SIZE: int(1).max(1024).default(8),
  BATCH_MAX_LATENCY_MS: z.coerce.number().min(0).max(10_000).default(5),
  WORKERS: int(1)
    .max(64)
    .default(Math.max(1, Math.min(4, os.availableParallelism() - 1))),
  MAX_IMAGE_BYTES: int(1).default(10 * 1024 * 1024),
  MAX_IMAGE_PIXELS: int(1).default(40_000_000),
  QUEUE_MAX: int(1).default(256),
  DECODE_CONCURRENCY: int(1).default(Math.max(2, os.availableParallelism())),
  SEARCH_MAX_K: int(1).max(10_000).default(100),
  PREPROCESS_SIZE: sizePair.optional(),
  PREPROCESS_MEAN: numberTriple.default([0, 0, 0]),
  PREPROCESS_STD: numberTriple.default([1, 1, 1]),
  PREPROCESS_SCALE: z.coerce
    .number()
    .positive()
    .default(1 / 255),
  PREPROCESS_CHANNEL_ORDER: z.enum(['RGB', 'BGR']).default('RGB'),
  PREPROCESS_RESIZE: z.enum(['fill', 'cover', 'contain']).default('fill'),
  EMBEDDING_OUTPUT: z.string().min(1).optional(),
  LOCAL_STORE_PATH: z.string().min(1).optional(),
  MODEL_CACHE_DIR: z
    .string()
    .min(1)
    .default(path.join(os.tmpdir(), 'cv-platform-model-downloads')),
  MODEL_RETRY_INITIAL_MS: int(1).default(1000),
  MODEL_RETRY_MAX_MS: int(1).default(60_000),
  S3_ENDPOINT: z.string().url().optional(),
  EXECUTION_PROVIDER: z.enum(['cpu', 'cuda']).default('cpu'),
  S3_FORCE_PATH_STYLE: boolish.optional(),
  WRITE_FORWARD_URL: z.string().url().optional(),
  SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(120).default(5),
});

export type RawConfig = z.infer<typeof schema>;

export interface ServiceConfig {
  /** MODEL_URL, or MODEL_PATH as written by the operator's init container. */
  modelUrl?: string;
  port: number;
  host: string;
  /** replicationFactor: of the collection when this service creates it. */
  qdrant?: { url: string; apiKey?: string; replicationFactor?: number };
  collection: string;
  batch: { maxSize: number; maxLatencyMs: number; maxQueue: number };
  workers: number;
  /** onnxruntime execution provider: cuda falls back to cpu when unusable. */
  executionProvider: 'cpu' | 'cuda';
  limits: {
    maxImageBytes: number;
    maxImagePixels: number;
    maxK: number;
    decodeConcurrency: number;
  };
  preprocess: {
    size?: [number, number];
    mean: [number, number, number];
    std: [number, number, number];
    scale: number;
    channelOrder: 'RGB' | 'BGR';
    resize: 'fill' | 'cover' | 'contain';
  };
  embeddingOutput?: string;
  localStorePath?: string;
  modelCacheDir: string;
  modelRetry: { initialMs: number; maxMs: number };
  s3: { endpoint?: string; forcePathStyle?: boolean };
  /** A canary's servers: where the stable servers take the writes this one takes. */
  writeForwardUrl?: string;
  /** On SIGTERM: seconds of serving while not ready before the server closes. */
  shutdownDelaySeconds: number;
}

export class ConfigError extends Error {}

/**
 * Merges CONFIG_FILE (JSON with env-named keys, e.g. from a ConfigMap) with
 * the environment; the environment wins so a Deployment can override a
 * shared ConfigMap per platform.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
): ServiceConfig {
  let fileValues: Record<string, unknown> = {};
  if (env.CONFIG_FILE) {
    try {
      fileValues = JSON.parse(fs.readFileSync(env.CONFIG_FILE, 'utf8'));
    } catch (err) {
      throw new ConfigError(
        `CONFIG_FILE ${env.CONFIG_FILE}: ${(err as Error).message}`,
      );
    }
    if (
      typeof fileValues !== 'object' ||
      fileValues === null ||
      Array.isArray(fileValues)
    ) {
      throw new ConfigError(
        `CONFIG_FILE ${env.CONFIG_FILE} must contain a JSON object`,
      );
    }
  }
  const merged: Record<string, unknown> = { ...fileValues };
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') merged[key] = v;
  }
  const unknown = Object.keys(fileValues).filter(k => !(k in schema.shape));
  if (unknown.length) {
    throw new ConfigError(
      `CONFIG_FILE has unknown keys: ${unknown.join(', ')}`,
    );
  }
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(
      `invalid configuration: ${parsed.error.issues
        .map(i => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  }
  const c = parsed.data;
  if (c.PREPROCESS_STD.some(s => s === 0))
    throw new ConfigError('PREPROCESS_STD must not contain 0');
  return {
    modelUrl: c.MODEL_URL ?? c.MODEL_PATH,
    port: c.PORT,
    host: c.HOST,
    qdrant: c.QDRANT_URL
      ? {
          url: c.QDRANT_URL,
          apiKey: c.QDRANT_API_KEY,
          replicationFactor: c.QDRANT_REPLICATION_FACTOR,
        }
      : undefined,
    collection: c.QDRANT_COLLECTION,
    batch: {
      maxSize: c.BATCH_MAX_SIZE,
      maxLatencyMs: c.BATCH_MAX_LATENCY_MS,
      maxQueue: c.QUEUE_MAX,
    },
    workers: c.WORKERS,
    executionProvider: c.EXECUTION_PROVIDER,
    limits: {
      maxImageBytes: c.MAX_IMAGE_BYTES,
      maxImagePixels: c.MAX_IMAGE_PIXELS,
      maxK: c.SEARCH_MAX_K,
      decodeConcurrency: c.DECODE_CONCURRENCY,
    },
    preprocess: {
      size: c.PREPROCESS_SIZE,
      mean: c.PREPROCESS_MEAN,
      std: c.PREPROCESS_STD,
      scale: c.PREPROCESS_SCALE,
      channelOrder: c.PREPROCESS_CHANNEL_ORDER,
      resize: c.PREPROCESS_RESIZE,
    },
    embeddingOutput: c.EMBEDDING_OUTPUT,
    localStorePath: c.LOCAL_STORE_PATH,
    modelCacheDir: c.MODEL_CACHE_DIR,
    modelRetry: {
      initialMs: c.MODEL_RETRY_INITIAL_MS,
      maxMs: c.MODEL_RETRY_MAX_MS,
    },
    s3: { endpoint: c.S3_ENDPOINT, forcePathStyle: c.S3_FORCE_PATH_STYLE },
    writeForwardUrl: c.WRITE_FORWARD_URL,
    shutdownDelaySeconds: c.SHUTDOWN_DELAY_SECONDS,
  };
}
