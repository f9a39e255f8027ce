import fs from 'node:fs';
import path from 'node:path';

// The harness only ever runs from the source tree, never from a bundle.
// eslint-disable-next-line no-restricted-syntax
export function findRepoRoot(start = __dirname): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'tools', 'control-plane', 'build.sh'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no repository root above ${start}`);
    dir = parent;
  }
}
