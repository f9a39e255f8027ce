import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ModelMetadata, ModelSpec } from '../model/describeModel';
import { createTensorPacker } from './createTensorPacker';
import type { TensorPreprocess } from './TensorPreprocess';

export type { TensorPreprocess };

export interface WorkerPoolOptions {
  modelPath: string;
  workers: number;
  /** onnxruntime intra-op threads per worker; 1 keeps workers from contending. */
  intraOpThreads?: number;
  /** cuda: try onnxruntime's CUDA provider first, falling back to CPU. Default cpu. */
  executionProvider?: 'cpu' | 'cuda';
  /**
   * Batches handed to one worker at once: one running and the rest waiting
   * in the worker's own queue, so it starts the next without waiting for
   * the event loop to send it. Default 2.
   */
  depth?: number;
}

export interface BatchResult {
  /** rows x dim, L2-normalised. */
  embeddings: Float32Array;
  /** Time spent inside session.run, for metrics. */
  runSeconds: number;
}

/** The model could not be loaded (bad file, unsupported ops, ...). */
export class ModelLoadError extends Error {}

interface Task {
  id: number;
  message: object;
  transfer: ArrayBuffer[];
  resolve: (r: BatchResult) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Sent to the worker, in the order it runs them. */
  tasks: Task[];
  /** A replacement worker is loading; nothing is sent meanwhile. */
  restarting?: boolean;
  detach?: () => void;
}

// The worker is plain .cjs beside this module: under jest, tsx and the
// compiled image alike (the Dockerfile copies it next to the compiled file).
// eslint-disable-next-line no-restricted-syntax
const WORKER_SCRIPT = path.join(__dirname, 'inferenceWorker.cjs');

function startWorker(
  options: WorkerPoolOptions,
): Promise<{ worker: Worker; metadata: ModelMetadata }> {
  const worker = new Worker(WORKER_SCRIPT, {
    workerData: {
      modelPath: options.modelPath,
      intraOpThreads: options.intraOpThreads ?? 1,
      executionProvider: options.executionProvider ?? 'cpu',
    },
  });
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      worker.off('error', fail);
      worker.off('exit', onExit);
      worker.off('message', onMessage);
    };
    function fail(err: Error) {
      cleanup();
      worker.terminate().catch(() => {});
      reject(new ModelLoadError(err.message));
    }
    function onExit(code: number) {
      fail(
        new Error(`inference worker exited with code ${code} while loading`),
      );
    }
    function onMessage(msg: {
      type: string;
      metadata: ModelMetadata;
      error: string;
    }) {
      cleanup();
      if (msg.type === 'ready') resolve({ worker, metadata: msg.metadata });
      else fail(new Error(msg.error));
    }
    worker.on('error', fail);
    worker.on('exit', onExit);
    worker.on('message', onMessage);
  });
}

/**
 * A fixed set of worker threads, each holding its own onnxruntime session
 * of the same model, so inference never runs on the event loop. One batch
 * per worker at a time; callers queue when all are busy.
 */
export class WorkerPool {
  private readonly slots: Slot[];
  private readonly waiting: Task[] = [];
  private nextId = 1;
  private closing = false;
  private drained?: () => void;
  private broken?: Error;

  private constructor(
    private readonly options: WorkerPoolOptions,
    workers: Worker[],
    readonly metadata: ModelMetadata,
  ) {
    this.slots = workers.map(worker => this.attach({ worker, tasks: [] }));
  }

  static async create(options: WorkerPoolOptions): Promise<WorkerPool> {
    const started = await Promise.allSettled(
      Array.from({ length: Math.max(1, options.workers) }, () =>
        startWorker(options),
      ),
    );
    const failed = started.find(s => s.status === 'rejected') as
      | PromiseRejectedResult
      | undefined;
    if (failed) {
      for (const s of started)
        if (s.status === 'fulfilled') await s.value.worker.terminate();
      throw failed.reason;
    }
    const ok = started as PromiseFulfilledResult<{
      worker: Worker;
      metadata: ModelMetadata;
    }>[];
    return new WorkerPool(
      options,
      ok.map(s => s.value.worker),
      ok[0].value.metadata,
    );
  }

  get size(): number {
    return this.slots.length;
  }

  /** Set when every worker died and none could be restarted. */
  get failure(): Error | undefined {
    return this.broken;
  }

  /** Workers without a batch and with nothing queued for them. */
  get idle(): number {
    return Math.max(
      0,
      this.slots.filter(s => !s.restarting && !s.tasks.length).length -
        this.waiting.length,
    );
  }

  /**
   * Runs one batch. Images are HWC RGB pixels, packed into the model's input
   * here, on the calling thread (a table lookup per value, ~0.2 ms per
   * 224x224 image), so the workers' cores only run the model. Queued
   * requests stay uint8 (a quarter of the float size) until their batch
   * goes out.
   */
  run(
    spec: ModelSpec,
    preprocess: TensorPreprocess,
    images: Uint8Array[],
  ): Promise<BatchResult> {
    if (this.closing) return Promise.reject(new Error('worker pool is closed'));
    if (this.broken) return Promise.reject(this.broken);
    let data: Float32Array;
    try {
      data = this.pack(spec, preprocess, images);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        message: { type: 'run', spec, count: images.length, data },
        transfer: [data.buffer as ArrayBuffer],
        resolve,
        reject,
      };
      const free = this.freeSlot();
      if (free) this.dispatch(free, task);
      else this.waiting.push(task);
    });
  }

  private pack(
    spec: ModelSpec,
    preprocess: TensorPreprocess,
    images: Uint8Array[],
  ): Float32Array {
    const size = spec.height * spec.width * 3;
    const pack = createTensorPacker(spec, preprocess);
    const out = new Float32Array(images.length * size);
    images.forEach((img, n) => pack(img, out, n * size));
    return out;
  }

  /** Lets in-flight and queued batches finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.busy() || this.waiting.length) {
      await new Promise<void>(resolve => {
        this.drained = resolve;
      });
    }
    await Promise.all(this.slots.map(s => this.terminate(s)));
  }

  private attach(slot: Slot): Slot {
    const worker = slot.worker;
    const onMessage = (msg: any) => this.onMessage(slot, msg);
    const onError = (err: unknown) => this.onCrash(slot, err as Error);
    const onExit = (code: number) =>
      this.onCrash(slot, new Error(`inference worker exited (${code})`));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    slot.detach = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    return slot;
  }

  private async terminate(slot: Slot): Promise<void> {
    slot.detach?.();
    await slot.worker.terminate();
  }

  private get depth(): number {
    return Math.max(1, this.options.depth ?? 2);
  }

  private busy(): boolean {
    return this.slots.some(s => s.tasks.length);
  }

  /** The least loaded worker that can take another batch. */
  private freeSlot(): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.slots) {
      if (s.restarting || s.tasks.length >= this.depth) continue;
      if (!best || s.tasks.length < best.tasks.length) best = s;
    }
    return best;
  }

  private dispatch(slot: Slot, task: Task): void {
    slot.tasks.push(task);
    slot.worker.postMessage({ ...task.message, id: task.id }, task.transfer);
  }

  private onMessage(
    slot: Slot,
    msg: {
      id: number;
      error?: string;
      embeddings?: Float32Array;
      runNs?: number;
    },
  ): void {
    const task = slot.tasks[0];
    if (!task || task.id !== msg.id) return;
    slot.tasks.shift();
    if (msg.error) task.reject(new Error(msg.error));
    else
      task.resolve({
        embeddings: msg.embeddings!,
        runSeconds: (msg.runNs ?? 0) / 1e9,
      });
    this.next(slot);
  }

  private next(slot: Slot): void {
    while (
      this.waiting.length &&
      !slot.restarting &&
      this.slots.includes(slot) &&
      slot.tasks.length < this.depth
    )
      this.dispatch(slot, this.waiting.shift()!);
    if (this.closing && this.drained && !this.busy() && !this.waiting.length)
      this.drained();
  }

  /** A crashed worker fails only its own batch; a fresh one takes its place. */
  private onCrash(slot: Slot, err: Error): void {
    slot.detach?.();
    for (const task of slot.tasks.splice(0))
      task.reject(new Error(`inference worker failed: ${err.message}`));
    if (this.closing) {
      this.next(slot);
      return;
    }
    slot.restarting = true;
    startWorker(this.options).then(
      ({ worker }) => {
        slot.worker = worker;
        this.attach(slot);
        slot.restarting = false;
        this.next(slot);
      },
      (respawnError: Error) => {
        this.slots.splice(this.slots.indexOf(slot), 1);
        if (!this.slots.length) {
          this.broken = new Error(
            `all inference workers failed: ${respawnError.message}`,
          );
          for (const t of this.waiting.splice(0)) t.reject(this.broken);
        }
      },
    );
  }
}
