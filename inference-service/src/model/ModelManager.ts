import fs from 'node:fs';
import { Batcher } from '../inference/Batcher';
import { TensorPreprocess, WorkerPool } from '../inference/WorkerPool';
import { Metrics } from '../metrics/createMetrics';
import { describeModel, ModelSpec } from './describeModel';
import { fetchModel, FetchOptions } from './fetchModel';
import {
  failedMarkerOf,
  ModelLoaderGaveUp,
  sourceMarkerOf,
} from './fetchModelCommand';

export interface ModelManagerOptions {
  modelUrl?: string;
  workers: number;
  /** cuda: onnxruntime's CUDA provider, or CPU with a logged reason when it cannot load. */
  executionProvider?: 'cpu' | 'cuda';
  batch: { maxSize: number; maxLatencyMs: number; maxQueue: number };
  preprocess: TensorPreprocess;
  size?: [number, number];
  embeddingOutput?: string;
  fetch: FetchOptions;
  retry: { initialMs: number; maxMs: number };
  metrics?: Metrics;
  log?: (
    level: 'info' | 'warn' | 'error',
    msg: string,
    fields?: object,
  ) => void;
}

/** One loaded model version: its own workers and its own batch queue. */
export class LoadedModel {
  private leases = 0;
  private retired?: Promise<void>;
  private released?: () => void;

  constructor(
    readonly version: number,
    readonly source: string,
    /**
     * The model's URL as the operator names it: the one it was loaded from,
     * or, for a file the model-loader init container fetched, the URL
     * recorded beside it.
     */
    readonly url: string,
    readonly spec: ModelSpec,
    readonly loadSeconds: number,
    private readonly pool: WorkerPool,
    readonly batcher: Batcher<Uint8Array, Float32Array>,
  ) {}

  get failure(): Error | undefined {
    return this.pool.failure;
  }

  get executionProvider(): 'cpu' | 'cuda' {
    return this.pool.metadata.executionProvider ?? 'cpu';
  }

  /** Why CUDA was asked for and the CPU runs the model instead. */
  get fallbackReason(): string | undefined {
    return this.pool.metadata.fallbackReason;
  }

  /** Pins this version until release(), so a swap never cuts a request off. */
  lease(): () => void {
    this.leases++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.leases--;
      if (this.leases === 0) this.released?.();
    };
  }

  /** Waits for every lease and queued batch, then stops the workers. */
  retire(): Promise<void> {
    this.retired ??= (async () => {
      if (this.leases > 0) await new Promise<void>(r => (this.released = r));
      await this.batcher.whenIdle();
      await this.pool.close();
    })();
    return this.retired;
  }
}

export class ModelRejectedError extends Error {}

export type ModelValidator = (spec: ModelSpec) => void | Promise<void>;

/**
 * Owns the serving model: initial load with exponential backoff, and hot
 * reload that loads the new version alongside the old one, swaps the
 * reference atomically, then drains and retires the old version.
 */
export class ModelManager {
  private active?: LoadedModel;
  private lastError?: string;
  private version = 0;
  private loading?: { url: string; done: Promise<LoadedModel> };
  /** What reload() without a URL loads: the configured model, then the last one reloaded by URL. */
  private url?: string;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private attempt = 0;
  private validator?: ModelValidator;
  private listeners: Array<(m: LoadedModel) => void> = [];

  constructor(private readonly options: ModelManagerOptions) {
    this.url = options.modelUrl;
    options.metrics?.setQueueDepthSource(
      () => this.active?.batcher.queueDepth ?? 0,
    );
  }

  get current(): LoadedModel | undefined {
    return this.active;
  }

  /** Why no model is serving (undefined when one is). */
  get notReadyReason(): string | undefined {
    if (this.active) {
      const failure = this.active.failure;
      return failure ? `model workers failed: ${failure.message}` : undefined;
    }
    if (!this.url) return 'no model configured (set MODEL_URL or MODEL_PATH)';
    return this.lastError
      ? `model not loaded: ${this.lastError}`
      : 'model loading';
  }

  /** Checked before a loaded version may serve (e.g. the collection's dimension). */
  setValidator(validator: ModelValidator): void {
    this.validator = validator;
  }

  onLoaded(listener: (m: LoadedModel) => void): void {
    this.listeners.push(listener);
  }

  /** Starts loading in the background, retrying with backoff until it works. */
  start(): void {
    if (!this.url) return;
    this.tryInitialLoad();
  }

  /**
   * Loads a model beside the serving one and swaps it in once it has run:
   * `url` (a new model, fetched by this process), or without one the current
   * model again (e.g. a new file at MODEL_PATH or a new object behind
   * MODEL_URL). Calls for the URL being loaded share that load; another URL
   * waits for it. A load that fails leaves the serving model as it was.
   */
  reload(url?: string): Promise<LoadedModel> {
    const target = url ?? this.url;
    if (!target)
      return Promise.reject(new ModelRejectedError('no model configured'));
    if (this.loading?.url === target) return this.loading.done;
    const before = this.loading?.done.catch(() => undefined);
    const done = (async () => {
      await before;
      return this.load(target);
    })();
    const entry = { url: target, done };
    this.loading = entry;
    done
      .finally(() => {
        if (this.loading === entry) this.loading = undefined;
      })
      .catch(() => undefined);
    return done;
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.loading?.done.catch(() => undefined);
    const active = this.active;
    this.active = undefined;
    await active?.retire();
  }

  private tryInitialLoad(): void {
    if (this.stopped || this.active) return;
    this.reload().catch(err => {
      if (this.stopped || this.active || err instanceof ModelRejectedError)
        return;
      // The model-loader gave up on this model: nothing will appear here to retry for.
      const gaveUp = this.url ? loaderGaveUp(this.url) : undefined;
      if (gaveUp) {
        this.lastError = gaveUp;
        this.options.log?.('error', 'the model-loader gave up; not ready', {
          error: gaveUp,
        });
        return;
      }
      const { initialMs, maxMs } = this.options.retry;
      // Jitter keeps a fleet of replicas from hammering the model store in step.
      const delay =
        Math.min(maxMs, initialMs * 2 ** this.attempt++) *
        (0.8 + Math.random() * 0.4);
      this.options.log?.('warn', 'model load failed, retrying', {
        error: (err as Error).message,
        retryInMs: Math.round(delay),
      });
      this.retryTimer = setTimeout(() => this.tryInitialLoad(), delay);
    });
  }

  private async load(url: string): Promise<LoadedModel> {
    const { options } = this;
    const started = process.hrtime.bigint();
    let pool: WorkerPool | undefined;
    try {
      const fetched = await fetchModel(url, options.fetch);
      try {
        pool = await WorkerPool.create({
          modelPath: fetched.path,
          workers: options.workers,
          executionProvider: options.executionProvider,
        });
        if (pool.metadata.fallbackReason) {
          options.log?.(
            'warn',
            'CUDA is not usable, running the model on the CPU',
            {
              reason: pool.metadata.fallbackReason,
            },
          );
        }
      } finally {
        // Each worker has read the file into its session; a download is no longer needed.
        if (fetched.temporary) fs.rmSync(fetched.path, { force: true });
      }
      const spec = describeModel(pool.metadata, {
        size: options.size,
        outputName: options.embeddingOutput,
      });
      const p = pool;
      // Warm up once so the first real request does not pay for lazy init,
      // and so a model that loads but cannot run is rejected here.
      await p.run(spec, options.preprocess, [
        new Uint8Array(spec.width * spec.height * 3),
      ]);
      await this.validator?.(spec);
      const batcher = new Batcher<Uint8Array, Float32Array>({
        maxBatchSize: Math.min(options.batch.maxSize, spec.maxBatch),
        maxLatencyMs: options.batch.maxLatencyMs,
        maxQueue: options.batch.maxQueue,
        concurrency: () => p.size,
        // One full batch waits in each busy worker's queue (WorkerPool depth 2).
        prefetch: 1,
        runBatch: async images => {
          const { embeddings, runSeconds } = await p.run(
            spec,
            options.preprocess,
            images,
          );
          options.metrics?.inferenceDuration.observe(runSeconds);
          return images.map((_, i) =>
            embeddings.subarray(i * spec.dim, (i + 1) * spec.dim),
          );
        },
        onBatch: size => options.metrics?.batchSize.observe(size),
      });
      if (this.stopped) throw new Error('model manager stopped');
      const loadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const model = new LoadedModel(
        ++this.version,
        fetchedSource(url),
        originOf(url),
        spec,
        loadSeconds,
        p,
        batcher,
      );
      const previous = this.active;
      this.active = model;
      this.url = url;
      this.lastError = undefined;
      this.attempt = 0;
      options.metrics?.modelLoads.inc({ result: 'success' });
      options.metrics?.modelLoadSeconds.set(loadSeconds);
      options.metrics?.modelReady.set(1);
      options.log?.('info', 'model loaded', {
        version: model.version,
        ...spec,
        loadSeconds,
      });
      for (const l of this.listeners) l(model);
      previous?.retire().catch(err =>
        options.log?.('warn', 'retiring old model failed', {
          error: String(err),
        }),
      );
      return model;
    } catch (err) {
      await pool?.close().catch(() => undefined);
      this.lastError = (err as Error).message;
      options.metrics?.modelLoads.inc({ result: 'failure' });
      throw err;
    }
  }
}

function fetchedSource(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//');
}

/** What a model-loader that gave up on this file left beside it (`<file>.failed`). */
function loaderGaveUp(url: string): string | undefined {
  if (!url.startsWith('/') || fs.existsSync(url)) return undefined;
  try {
    const failed = JSON.parse(fs.readFileSync(failedMarkerOf(url), 'utf8'));
    const gaveUp = new ModelLoaderGaveUp(
      failed.url,
      failed.attempts,
      failed.error,
    );
    return `${gaveUp.message} (${fetchedSource(String(failed.url))})`;
  } catch {
    return undefined;
  }
}

/** A local file's origin as the model-loader recorded it (`<file>.source`), else the URL itself without credentials. */
function originOf(url: string): string {
  if (url.startsWith('/')) {
    try {
      const recorded = fs.readFileSync(sourceMarkerOf(url), 'utf8').trim();
      if (recorded) return fetchedSource(recorded);
    } catch {
      // Not fetched by the loader: the path is its name.
    }
  }
  return fetchedSource(url);
}
