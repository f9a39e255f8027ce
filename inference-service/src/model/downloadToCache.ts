import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FetchedModel } from './FetchedModel';
import { ModelFetchError } from './ModelFetchError';

const DEFAULT_MAX_BYTES = 4 * 1024 ** 3;

export interface DownloadOptions {
  cacheDir: string;
  maxBytes?: number;
}

/**
 * Streams a model body into a new file in the cache directory, at most
 * maxBytes of it. A failed download leaves no file behind.
 */
export async function downloadToCache(
  body: Readable,
  options: DownloadOptions,
  source: string,
): Promise<FetchedModel> {
  fs.mkdirSync(options.cacheDir, { recursive: true });
  const file = path.join(options.cacheDir, `model-${randomUUID()}.onnx`);
  const max = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let size = 0;
  body.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > max)
      body.destroy(
        new ModelFetchError(`${source}: model is larger than ${max} bytes`),
      );
  });
  const out = fs.createWriteStream(file);
  try {
    await pipeline(body, out);
  } catch (err) {
    // The file is opened asynchronously: a body that fails at once can
    // reject the pipeline before the open has created it. Remove it only
    // once the stream has let go of it, or it would appear afterwards.
    if (!out.closed) await new Promise(resolve => out.once('close', resolve));
    fs.rmSync(file, { force: true });
    throw err instanceof ModelFetchError
      ? err
      : new ModelFetchError(
          `${source}: download failed: ${(err as Error).message}`,
        );
  }
  if (size === 0) {
    fs.rmSync(file, { force: true });
    throw new ModelFetchError(`${source}: empty model file`);
  }
  return { path: file, temporary: true, source };
}
