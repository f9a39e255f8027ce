import os from 'node:os';
import path from 'node:path';

/**
 * Where generated models live: outside the repository so large artifacts are
 * never committed, shared between test runs, the bench and `model:build`.
 */
export function modelCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'cv-platform', 'models');
}
