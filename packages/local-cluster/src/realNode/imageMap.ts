import fs from 'node:fs';
import path from 'node:path';

/** One entry of the node agent's image map (see tools/node-agent/imagemap.go). */
export interface ImageProgram {
  pattern: string;
  entrypoint?: string[];
  cmd?: string[];
  workingDir?: string;
  env?: Record<string, string>;
  user?: number;
  group?: number;
  /** Container path -> host path, read-only: what the image's layers would hold. */
  files?: Record<string, string>;
}

/** Where a locally built Qdrant binary is looked for when QDRANT_BIN is not set. */
export function defaultQdrantBin(): string {
  const cache =
    process.env.CV_PLATFORM_CACHE ??
    path.join(
      process.env.XDG_CACHE_HOME ??
        path.join(process.env.HOME ?? '/root', '.cache'),
      'cv-platform',
    );
  return path.join(cache, 'qdrant', 'qdrant');
}

export function qdrantBinary(): string | undefined {
  const configured = process.env.QDRANT_BIN;
  if (configured) {
    if (!fs.existsSync(configured))
      throw new Error(`QDRANT_BIN=${configured} does not exist`);
    return configured;
  }
  const cached = defaultQdrantBin();
  return fs.existsSync(cached) ? cached : undefined;
}

/**
 * The documented image map (README, "Real pods"): which program each image
 * runs on the real node.
 *
 * - the inference-service image (`cv-platform/inference-service`, and the
 *   samples' `my-repo/cv-inference`) runs this repository's inference-service
 *   from source, as its Dockerfile's ENTRYPOINT does (`fetch-model` in the
 *   model-loader init container, the server otherwise);
 * - `qdrant/qdrant:<any>` runs the Qdrant binary from QDRANT_BIN (or the
 *   cache path), else the Qdrant stand-in, through the image's
 *   `/qdrant/entrypoint.sh` as the pod's command expects;
 * - the operator image (`ghcr.io/cv-platform/inference-platform-operator`, as
 *   the Helm chart names it, under any registry) runs this repository's
 *   operator from source;
 * - `node:<any>` and `busybox:<any>` run the host's node and shell, for tests.
 *
 * Any other image fails to start with ErrImageNeverPull naming the image.
 */
export function imageMap(
  repoRoot: string,
  workDir: string,
): { images: ImageProgram[]; qdrant: string } {
  const tsx = path.join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs');
  const nodeImage = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    TSX_DISABLE_CACHE: '1',
  };
  const inference: Omit<ImageProgram, 'pattern'> = {
    entrypoint: [
      'node',
      '--import',
      `file://${tsx}`,
      path.join(repoRoot, 'inference-service', 'src', 'main.ts'),
    ],
    workingDir: path.join(repoRoot, 'inference-service'),
    env: {
      ...nodeImage,
      NODE_ENV: 'production',
      PORT: '8080',
      MODEL_PATH: '/models/model.onnx',
    },
    user: 1000,
    group: 1000,
    files: { [repoRoot]: repoRoot },
  };
  // The operator image's ENTRYPOINT (deploy/operator/Dockerfile): the
  // operator's bin, here from source.
  const operator: Omit<ImageProgram, 'pattern'> = {
    entrypoint: [
      'node',
      '--import',
      `file://${tsx}`,
      path.join(repoRoot, 'operator', 'src', 'main.ts'),
    ],
    workingDir: path.join(repoRoot, 'operator'),
    env: { ...nodeImage, NODE_ENV: 'production' },
    user: 1000,
    group: 1000,
    files: { [repoRoot]: repoRoot },
  };
  const qdrantDir = path.join(workDir, 'images', 'qdrant');
  fs.mkdirSync(qdrantDir, { recursive: true });
  const bin = qdrantBinary();
  const standIn = path.join(
    repoRoot,
    'inference-service',
    'src',
    '__testUtils__',
    'qdrantStandIn.ts',
  );
  fs.writeFileSync(
    path.join(qdrantDir, 'entrypoint.sh'),
    bin
      ? '#!/bin/sh\n# Qdrant image entrypoint on the real node: the configured Qdrant binary.\nexec /qdrant/qdrant "$@"\n'
      : `#!/bin/sh\n# No Qdrant binary configured (QDRANT_BIN): the stand-in, which says so.\nexec node --import file://${tsx} ${standIn} "$@"\n`,
    { mode: 0o755 },
  );
  const qdrantFiles: Record<string, string> = {
    '/qdrant': qdrantDir,
    [repoRoot]: repoRoot,
  };
  if (bin) qdrantFiles['/qdrant/qdrant'] = bin;
  return {
    qdrant: bin ? `Qdrant binary ${bin}` : 'Qdrant stand-in (no QDRANT_BIN)',
    images: [
      { pattern: 'cv-platform/inference-service:*', ...inference },
      { pattern: '*/cv-inference:*', ...inference },
      { pattern: 'cv-inference:*', ...inference },
      { pattern: '*/*/inference-platform-operator:*', ...operator },
      { pattern: '*/inference-platform-operator:*', ...operator },
      {
        pattern: 'qdrant/qdrant:*',
        entrypoint: ['./entrypoint.sh'],
        workingDir: '/qdrant',
        env: { ...nodeImage, RUN_MODE: 'production' },
        user: 0,
        group: 0,
        files: qdrantFiles,
      },
      {
        pattern: 'node:*',
        cmd: ['node'],
        env: nodeImage,
        user: 0,
        group: 0,
        files: { [repoRoot]: repoRoot },
      },
      { pattern: 'busybox:*', cmd: ['sh'], env: nodeImage, user: 0, group: 0 },
    ],
  };
}
