import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * Runs one of the repository's cached build scripts (they print their bin
 * directory as the last line of stdout); returns that directory.
 */
export function runBuildScript(
  repoRoot: string,
  script: string,
  what: string,
): string {
  const result = spawnSync('bash', [path.join(repoRoot, script)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`building ${what} failed (exit ${result.status})`);
  }
  const lines = result.stdout.trim().split('\n');
  return lines[lines.length - 1];
}
