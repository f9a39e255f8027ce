import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fetchModel } from './fetchModel';

/** A lock not touched for this long belongs to a loader that died. */
const STALE_LOCK_MS = 30_000;
const HEARTBEAT_MS = 5_000;
const POLL_MS = 250;

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

/** Back-off between download attempts: 2 s, 4 s, 8 s, ... at most 30 s. */
const retryDelayMs = (attempt: number) =>
  Math.min(30_000, 2000 * 2 ** (attempt - 1));

/**
 * Every attempt failed (modelSource.maxRetries + 1). The loader records it
 * beside the model (`<MODEL_PATH>.failed`) and in its termination message,
 * and exits 0: the server then stays unready saying why, instead of an
 * endless crash loop of the loader.
 */
export class ModelLoaderGaveUp extends Error {
  constructor(
    readonly url: string,
    readonly attempts: number,
    readonly lastError: string,
  ) {
    super(
      `model download failed after ${attempts} attempt${
        attempts === 1 ? '' : 's'
      }: ${lastError}`,
    );
  }
}

/** Where a loader that gave up leaves its reason for the server. */
export const failedMarkerOf = (modelPath: string) => `${modelPath}.failed`;

/** Where the loader records the URL a model file came from. */
export const sourceMarkerOf = (modelPath: string) => `${modelPath}.source`;

function alreadyThere(target: string, marker: string, url: string): boolean {
  try {
    return fs.existsSync(target) && fs.readFileSync(marker, 'utf8') === url;
  } catch {
    return false;
  }
}

/** A name beside `file` that no other loader, in this process or another, uses. */
const tempBeside = (file: string) =>
  `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;

/** Writes a file so that readers see the old content or the new, never a part. */
async function writeAtomically(file: string, content: string) {
  const tmp = tempBeside(file);
  await fs.promises.writeFile(tmp, content);
  await fs.promises.rename(tmp, file);
}

/**
 * `fetch-model`: what the operator's model-loader init container runs. Puts
 * the model at MODEL_URL into MODEL_PATH (the shared model volume) and
 * records its source beside it, so a volume that already holds this model is
 * not downloaded again while a new URL always is.
 *
 * On a volume shared by several pods (the platform's model PVC) loaders may
 * start together: one takes `<MODEL_PATH>.lock` (O_EXCL) and downloads,
 * keeping the lock fresh; the others wait for the model to appear, and take
 * the lock over only when its holder stopped touching it. The file is
 * renamed into place whole, so no reader ever sees part of a model.
 */
export async function fetchModelCommand(
  env: NodeJS.ProcessEnv = process.env,
  onRetry: (attempt: number, error: string, delayMs: number) => void = () => {},
): Promise<string> {
  const url = env.MODEL_URL;
  if (!url) throw new Error('MODEL_URL is required');
  const target = env.MODEL_PATH ?? '/models/model.onnx';
  const marker = sourceMarkerOf(target);
  const lock = `${target}.lock`;
  const timeoutMs = Number(env.PULL_TIMEOUT_SECONDS ?? 600) * 1000;
  const maxRetries = Math.max(0, Number(env.MAX_RETRIES ?? 3));
  const deadline = Date.now() + timeoutMs;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  for (;;) {
    if (alreadyThere(target, marker, url)) return target;
    let handle: fs.promises.FileHandle | undefined;
    try {
      handle = await fs.promises.open(lock, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (handle) {
      try {
        for (let attempt = 1; ; attempt++) {
          try {
            await download(url, target, env, timeoutMs, lock);
            break;
          } catch (e) {
            const error = (e as Error).message;
            if (attempt > maxRetries) {
              await writeAtomically(
                failedMarkerOf(target),
                JSON.stringify({ url, attempts: attempt, error }),
              );
              throw new ModelLoaderGaveUp(url, attempt, error);
            }
            onRetry(attempt, error, retryDelayMs(attempt));
            await sleep(retryDelayMs(attempt));
          }
        }
        await writeAtomically(marker, url);
        await fs.promises.rm(failedMarkerOf(target), { force: true });
        return target;
      } finally {
        await handle.close();
        await fs.promises.rm(lock, { force: true });
      }
    }
    // Another loader is at work: wait for its model, or for its lock to go stale.
    try {
      const { mtimeMs } = await fs.promises.stat(lock);
      if (Date.now() - mtimeMs > STALE_LOCK_MS) {
        await fs.promises.rm(lock, { force: true });
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${
          timeoutMs / 1000
        } s waiting for another loader to fetch ${url} (lock ${lock})`,
      );
    }
    await sleep(POLL_MS);
  }
}

async function download(
  url: string,
  target: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  lock: string,
) {
  const dir = path.dirname(target);
  const heartbeat = setInterval(() => {
    const now = new Date();
    fs.utimes(lock, now, now, () => {});
  }, HEARTBEAT_MS);
  try {
    const fetched = await fetchModel(url, {
      cacheDir: dir,
      timeoutMs,
      s3: {
        endpoint: env.S3_ENDPOINT,
        region: env.AWS_REGION,
        // Unset: path-style with a custom endpoint (fetchModel's default).
        forcePathStyle:
          env.S3_FORCE_PATH_STYLE === undefined
            ? undefined
            : env.S3_FORCE_PATH_STYLE === 'true',
      },
    });
    if (path.resolve(fetched.path) !== path.resolve(target)) {
      // Copy then rename: the server never sees a half-written model.
      const tmp = tempBeside(`${target}.partial`);
      try {
        await fs.promises.copyFile(fetched.path, tmp);
        await fs.promises.rename(tmp, target);
      } finally {
        await fs.promises.rm(tmp, { force: true });
        if (fetched.temporary)
          await fs.promises.rm(fetched.path, { force: true });
      }
    }
  } finally {
    clearInterval(heartbeat);
  }
}
