import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp directory; returns its path and a cleanup function. */
export function makeTempDir(prefix = 'inference-test-'): {
  dir: string;
  cleanup: () => void;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
