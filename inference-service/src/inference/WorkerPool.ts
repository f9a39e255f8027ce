import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ModelMetadata, ModelSpec } from '../model/describeModel';

/** How pixels become model input; mirrors the PREPROCESS_* settings. */
export interface TensorPreprocess {
  mean: [number, number, number];
  std: [number, number, number];
  scale: number;
  channelOrder: 'RGB' | 'BGR';
}

export interface WorkerPoolOptions {
  modelPath: string;
  workers: number;
  /** onnxruntime intra-op threads per worker; 1 keeps workers from contending. */
  intraOpThreads?: number;
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
  task?: Task;
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
    this.slots = workers.map(worker => this.attach({ worker }));
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
      this.slots.filter(s => !s.task).length - this.waiting.length,
    );
  }

  run(
    spec: ModelSpec,
    preprocess: TensorPreprocess,
    images: Uint8Array[],
  ): Promise<BatchResult> {
    if (this.closing) return Promise.reject(new Error('worker pool is closed'));
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      const transfer = images
        .map(i => i.buffer as ArrayBuffer)
        .filter((b, i, all) => all.indexOf(b) === i && b.byteLength > 0);
      const task: Task = {
        id: this.nextId++,
        message: { type: 'run', spec, preprocess, images },
        transfer,
        resolve,
        reject,
      };
      const free = this.slots.find(s => !s.task);
      if (free) this.dispatch(free, task);
      else this.waiting.push(task);
    });
  }

  /** Lets in-flight and queued batches finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.slots.some(s => s.task) || this.waiting.length) {
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

  private dispatch(slot: Slot, task: Task): void {
    slot.task = task;
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
    const task = slot.task;
    if (!task || task.id !== msg.id) return;
    slot.task = undefined;
    if (msg.error) task.reject(new Error(msg.error));
    else
      task.resolve({
        embeddings: msg.embeddings!,
        runSeconds: (msg.runNs ?? 0) / 1e9,
      });
    this.next(slot);
  }

  private next(slot: Slot): void {
    const queued = this.waiting.shift();
    if (queued) this.dispatch(slot, queued);
    else if (this.closing && this.drained && !this.slots.some(s => s.task))
      this.drained();
  }

  /** A crashed worker fails only its own batch; a fresh one takes its place. */
  private onCrash(slot: Slot, err: Error): void {
    slot.detach?.();
    const task = slot.task;
    slot.task = undefined;
    task?.reject(new Error(`inference worker failed: ${err.message}`));
    if (this.closing) {
      this.next(slot);
      return;
    }
    // Keep the slot busy with a placeholder so no batch is sent to it
    // while the replacement loads.
    slot.task = { id: -1 } as Task;
    startWorker(this.options).then(
      ({ worker }) => {
        slot.worker = worker;
        this.attach(slot);
        slot.task = undefined;
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
