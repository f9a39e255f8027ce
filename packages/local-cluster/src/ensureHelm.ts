import path from 'node:path';
import { findRepoRoot } from './findRepoRoot';
import { runBuildScript } from './runBuildScript';

/** Builds (or reuses from the cache) helm from its pinned Go module; returns the binary's path. */
export function ensureHelm(repoRoot = findRepoRoot()): string {
  return path.join(runBuildScript(repoRoot, 'tools/helm/build.sh', 'helm'), 'helm');
}
