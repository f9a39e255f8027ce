import fs from 'node:fs';
import path from 'node:path';
import { fetchModel } from './fetchModel';

/**
 * `fetch-model`: what the operator's model-loader init container runs. Puts
 * the model at MODEL_URL into MODEL_PATH (the shared model volume) and
 * records its source beside it, so a PVC that already holds this model is
 * not downloaded again while a new URL always is.
 */
export async function fetchModelCommand(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const url = env.MODEL_URL;
  if (!url) throw new Error('MODEL_URL is required');
  const target = env.MODEL_PATH ?? '/models/model.onnx';
  const marker = `${target}.source`;
  if (fs.existsSync(target) && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === url) {
    return target;
  }
  const dir = path.dirname(target);
  fs.mkdirSync(dir, { recursive: true });
  const fetched = await fetchModel(url, {
    cacheDir: dir,
    timeoutMs: Number(env.PULL_TIMEOUT_SECONDS ?? 600) * 1000,
    s3: {
      endpoint: env.S3_ENDPOINT,
      forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    },
  });
  if (path.resolve(fetched.path) !== path.resolve(target)) {
    // Copy then rename: the server never sees a half-written model.
    const tmp = `${target}.partial`;
    await fs.promises.copyFile(fetched.path, tmp);
    await fs.promises.rename(tmp, target);
    if (fetched.temporary) await fs.promises.rm(fetched.path, { force: true });
  }
  fs.writeFileSync(marker, url);
  return target;
}
