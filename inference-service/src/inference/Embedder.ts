import { ModelManager } from '../model/ModelManager';
import { decodeImage, ResizeFit } from './decodeImage';

export interface EmbedderOptions {
  maxPixels: number;
  resize: ResizeFit;
  /** Images decoded at once; bounds the memory of decoded bitmaps. */
  decodeConcurrency: number;
}

/** No model is serving yet (HTTP 503). */
export class ModelNotReadyError extends Error {}

export interface Embedding {
  vector: Float32Array;
  modelVersion: number;
  /** Seconds decoding the image (waiting for a decode slot included). */
  decodeSeconds: number;
  /** Seconds from the decoded pixels to the vector: the batch's wait and the model's run. */
  embedSeconds: number;
}

const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** Counting semaphore for the decode stage. */
class Semaphore {
  private waiters: Array<() => void> = [];
  constructor(private available: number) {}
  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--;
      return;
    }
    await new Promise<void>(r => this.waiters.push(r));
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.available++;
  }
}

/** Image bytes -> L2-normalised embedding, pinned to one model version. */
export class Embedder {
  private readonly decodeSlots: Semaphore;

  constructor(
    private readonly models: ModelManager,
    private readonly options: EmbedderOptions,
  ) {
    this.decodeSlots = new Semaphore(options.decodeConcurrency);
  }

  get dim(): number | undefined {
    return this.models.current?.spec.dim;
  }

  async embed(bytes: Uint8Array): Promise<Embedding> {
    const model = this.models.current;
    if (!model)
      throw new ModelNotReadyError(
        this.models.notReadyReason ?? 'model not loaded',
      );
    // The lease keeps this version alive across a hot swap until we are done.
    const release = model.lease();
    try {
      const decodeStart = process.hrtime.bigint();
      await this.decodeSlots.acquire();
      let pixels: Uint8Array;
      try {
        pixels = await decodeImage(bytes, {
          width: model.spec.width,
          height: model.spec.height,
          fit: this.options.resize,
          maxPixels: this.options.maxPixels,
        });
      } finally {
        this.decodeSlots.release();
      }
      const decodeSeconds = since(decodeStart);
      const embedStart = process.hrtime.bigint();
      const vector = await model.batcher.submit(pixels);
      return { vector, modelVersion: model.version, decodeSeconds, embedSeconds: since(embedStart) };
    } finally {
      release();
    }
  }
}
