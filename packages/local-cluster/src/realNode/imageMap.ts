import fs from 'node:fs';
import path from 'node:path';
import {
  QdrantBinaryChoice,
  nearestQdrantTag,
  qdrantBinarySources,
  qdrantBinaryTags,
  resolveQdrantBinary,
} from './qdrantBinaries';

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

/**
 * The documented image map (README, "Real pods"): which program each image
 * runs on the real node.
 *
 * - the inference-service image (`cv-platform/inference-service`, and the
 *   samples' `my-repo/cv-inference`) runs this repository's inference-service
 *   from source, as its Dockerfile's ENTRYPOINT does (`fetch-model` in the
 *   model-loader init container, the server otherwise);
 * - `qdrant/qdrant:<tag>` runs a real Qdrant binary (qdrantBinaries.ts:
 *   QDRANT_BIN for every tag, else the tag's own binary, else the nearest of
 *   its minor, saying so in the pod's log), else the Qdrant stand-in,
 *   through the image's `/qdrant/entrypoint.sh` as the pod's command expects;
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
  const qdrant = qdrantImages(repoRoot, workDir, tsx, nodeImage);
  return {
    qdrant: qdrant.description,
    images: [
      { pattern: 'cv-platform/inference-service:*', ...inference },
      { pattern: '*/cv-inference:*', ...inference },
      { pattern: 'cv-inference:*', ...inference },
      { pattern: '*/*/inference-platform-operator:*', ...operator },
      { pattern: '*/inference-platform-operator:*', ...operator },
      ...qdrant.images,
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

/**
 * The `qdrant/qdrant` entries, first match wins: with QDRANT_BIN one binary
 * for every tag; else each tag with a binary runs its own, a tag of a minor
 * that has one runs the nearest of that minor (its entrypoint says so in the
 * pod's log), and any other tag runs the stand-in.
 */
function qdrantImages(
  repoRoot: string,
  workDir: string,
  tsx: string,
  nodeImage: Record<string, string>,
): { images: ImageProgram[]; description: string } {
  const standIn = path.join(repoRoot, 'inference-service', 'src', '__testUtils__', 'qdrantStandIn.ts');
  const sources = qdrantBinarySources(repoRoot);
  const entry = (pattern: string, dirName: string, script: string, bin?: string): ImageProgram => {
    const dir = path.join(workDir, 'images', dirName);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'entrypoint.sh'), `#!/bin/sh\n${script}`, { mode: 0o755 });
    const files: Record<string, string> = { '/qdrant': dir, [repoRoot]: repoRoot };
    if (bin) files['/qdrant/qdrant'] = bin;
    return {
      pattern,
      entrypoint: ['./entrypoint.sh'],
      workingDir: '/qdrant',
      env: { ...nodeImage, RUN_MODE: 'production' },
      user: 0,
      group: 0,
      files,
    };
  };
  const runBinary = (why: string) => `# Qdrant image entrypoint on the real node: ${why}\nexec /qdrant/qdrant "$@"\n`;
  const standInEntry = (why: string) =>
    entry(
      'qdrant/qdrant:*',
      'qdrant',
      `# ${why}: the stand-in, which says so.\nexec node --import file://${tsx} ${standIn} "$@"\n`,
    );

  if (sources.bin) {
    const only = resolveQdrantBinary(undefined, sources)!;
    return {
      images: [entry('qdrant/qdrant:*', 'qdrant', runBinary('the binary in QDRANT_BIN, for every tag.'), only.path)],
      description: `Qdrant binary ${only.path} (QDRANT_BIN) for every tag`,
    };
  }
  const tags = qdrantBinaryTags(sources);
  if (tags.length === 0) {
    return {
      images: [standInEntry('No Qdrant binary (QDRANT_BIN, QDRANT_BIN_DIR, QDRANT_SHARED_DIR)')],
      description: 'Qdrant stand-in (no Qdrant binary)',
    };
  }
  const chosen = new Map<string, QdrantBinaryChoice>(tags.map(t => [t, resolveQdrantBinary(t, sources)!]));
  const images: ImageProgram[] = tags.map(t =>
    entry(`qdrant/qdrant:${t}`, `qdrant-${t}`, runBinary(`Qdrant ${t}.`), chosen.get(t)!.path),
  );
  // Tags without a binary of their own: each patch up to the highest one
  // there is gets its nearest explicitly; above it, the highest is nearest.
  const minors = new Map<string, string[]>();
  for (const t of tags) {
    const minor = t.replace(/\.\d+$/, '');
    minors.set(minor, [...(minors.get(minor) ?? []), t]);
  }
  for (const [minor, ofMinor] of minors) {
    const highest = ofMinor[ofMinor.length - 1];
    const maxPatch = Number(highest.split('.')[2]);
    const substitutes = [
      ...Array.from({ length: maxPatch }, (_, p) => `${minor}.${p}`).filter(t => !ofMinor.includes(t)),
      `${minor}.*`,
    ];
    for (const t of substitutes) {
      const serving = t.endsWith('*') ? highest : nearestQdrantTag(t, ofMinor)!;
      images.push(
        entry(
          `qdrant/qdrant:${t}`,
          `qdrant-${t.replace('*', 'any')}`,
          `echo "qdrant image qdrant/qdrant:${t}: no Qdrant binary for this tag here; running ${serving}, the nearest of ${minor}" >&2\n${runBinary(
            `Qdrant ${serving} standing in for ${t}.`,
          )}`,
          chosen.get(serving)!.path,
        ),
      );
    }
  }
  images.push(standInEntry(`No Qdrant binary of this minor (binaries here: ${tags.join(', ')})`));
  return { images, description: `Qdrant binaries ${tags.join(', ')} by tag (nearest of the same minor, else the stand-in)` };
}
