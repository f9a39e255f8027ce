import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { findRepoRoot } from '../findRepoRoot';

/**
 * SHA-256 of each Qdrant binary this repository trusts, unpacked (Linux
 * x86-64, built from Qdrant's public source; ../shared/qdrant/README.md says
 * how). A gzipped binary found in the shared directory is unpacked only when
 * its tag is listed here and its bytes match: the pin lives in the
 * repository, as go.sum's do, not beside the file it vouches for.
 */
export const QDRANT_BINARY_SHA256: Readonly<Record<string, string>> = {
  'v1.13.6': '118f996f297c6f498091d51bd6d748a7778091b784a45cd31a79af84dabbc9e1',
  'v1.14.1': '21485e84ef25d68a9ca330b3d6bf108a98d5cf7bd1ebb9544c3f2db7dd72d54c',
};

/** Where Qdrant binaries are looked for; every field has a default from the environment. */
export interface QdrantBinarySources {
  /** One binary for every tag (QDRANT_BIN). */
  bin?: string;
  /** Holds `<tag>/qdrant` (QDRANT_BIN_DIR, default `<cache>/qdrant`). */
  versionsDir: string;
  /** Holds `<tag>/qdrant.gz`, unpacked into versionsDir on first use (QDRANT_SHARED_DIR, default `../shared/qdrant` beside the repository). */
  sharedDir?: string;
  checksums: Readonly<Record<string, string>>;
}

/** How a tag resolved: the binary, and why that one. */
export interface QdrantBinaryChoice {
  path: string;
  /** The tag of the binary that runs (the requested one, or the nearest of its minor); undefined for QDRANT_BIN. */
  tag?: string;
  from: 'QDRANT_BIN' | 'versions directory' | 'shared directory';
  /** Set when the binary is not the requested tag's own. */
  substitute?: string;
}

function cacheDir(): string {
  return (
    process.env.CV_PLATFORM_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(process.env.HOME ?? '/root', '.cache'), 'cv-platform')
  );
}

/**
 * `shared/qdrant` beside the repository (`../shared/qdrant`), or beside one of
 * the directories above it, where a checkout is cloned one level deeper;
 * `../shared/qdrant` when there is none, for the message that says where.
 */
function sharedQdrantDir(repoRoot: string): string {
  for (let dir = path.dirname(repoRoot); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'qdrant');
    if (fs.existsSync(candidate)) return candidate;
  }
  return path.join(repoRoot, '..', 'shared', 'qdrant');
}

/** The sources from the environment: QDRANT_BIN, QDRANT_BIN_DIR, QDRANT_SHARED_DIR. */
export function qdrantBinarySources(repoRoot = findRepoRoot()): QdrantBinarySources {
  return {
    bin: process.env.QDRANT_BIN || undefined,
    versionsDir: process.env.QDRANT_BIN_DIR || path.join(cacheDir(), 'qdrant'),
    sharedDir: process.env.QDRANT_SHARED_DIR || sharedQdrantDir(repoRoot),
    checksums: QDRANT_BINARY_SHA256,
  };
}

interface Version {
  major: number;
  minor: number;
  patch: number;
}

function parseTag(tag: string): Version | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(tag);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : undefined;
}

const listDirs = (dir: string | undefined): string[] => {
  try {
    return dir ? fs.readdirSync(dir) : [];
  } catch {
    return [];
  }
};

/** Tags with a binary in the versions directory or a gzipped one in the shared directory, oldest first. */
export function availableQdrantTags(sources: QdrantBinarySources): string[] {
  const tags = new Set<string>();
  for (const tag of listDirs(sources.versionsDir)) {
    if (parseTag(tag) && fs.existsSync(path.join(sources.versionsDir, tag, 'qdrant'))) tags.add(tag);
  }
  for (const tag of listDirs(sources.sharedDir)) {
    if (parseTag(tag) && fs.existsSync(path.join(sources.sharedDir!, tag, 'qdrant.gz'))) tags.add(tag);
  }
  return [...tags].sort((a, b) => compareTags(a, b));
}

function compareTags(a: string, b: string): number {
  const x = parseTag(a)!;
  const y = parseTag(b)!;
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}

/**
 * The tag whose binary serves `tag`: its own, else the one of the same minor
 * with the nearest patch (the higher on a tie: a patch release only fixes),
 * else none.
 */
export function nearestQdrantTag(tag: string, available: string[]): string | undefined {
  if (available.includes(tag)) return tag;
  const want = parseTag(tag);
  if (!want) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of available) {
    const v = parseTag(candidate)!;
    if (v.major !== want.major || v.minor !== want.minor) continue;
    const d = Math.abs(v.patch - want.patch);
    if (d < bestDistance || (d === bestDistance && compareTags(candidate, best!) > 0)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The versions directory's `<tag>/qdrant`, unpacked from the shared
 * directory's `<tag>/qdrant.gz` first when it is not there yet: once, with its
 * SHA-256 checked against the pinned one, written beside and renamed so a
 * half-written or unverified file is never found.
 */
function ensureUnpacked(tag: string, sources: QdrantBinarySources): QdrantBinaryChoice {
  const target = path.join(sources.versionsDir, tag, 'qdrant');
  if (fs.existsSync(target)) return { path: target, tag, from: 'versions directory' };
  const gz = path.join(sources.sharedDir!, tag, 'qdrant.gz');
  const expected = sources.checksums[tag];
  if (!expected) {
    throw new Error(
      `${gz}: no pinned SHA-256 for Qdrant ${tag} (packages/local-cluster/src/realNode/qdrantBinaries.ts), so it is not unpacked`,
    );
  }
  const bytes = zlib.gunzipSync(fs.readFileSync(gz));
  const actual = crypto.createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) {
    throw new Error(`${gz}: the unpacked binary's SHA-256 is ${actual}, expected ${expected} for Qdrant ${tag}`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, bytes, { mode: 0o755 });
  fs.renameSync(tmp, target);
  return { path: target, tag, from: 'shared directory' };
}

/**
 * The Qdrant binary for an image tag, in this order: QDRANT_BIN (one binary
 * for every tag); the versions directory's `<tag>/qdrant`; the shared
 * directory's `<tag>/qdrant.gz`, unpacked into the versions directory; the
 * nearest binary of the same minor from either, marked as a substitute.
 * Undefined when none serves the tag (the real node runs the stand-in).
 * Without a tag: the newest binary there is, for "is real Qdrant here at all".
 */
export function resolveQdrantBinary(
  tag: string | undefined,
  sources: QdrantBinarySources = qdrantBinarySources(),
): QdrantBinaryChoice | undefined {
  if (sources.bin) {
    if (!fs.existsSync(sources.bin)) throw new Error(`QDRANT_BIN=${sources.bin} does not exist`);
    return { path: sources.bin, from: 'QDRANT_BIN' };
  }
  const available = availableQdrantTags(sources);
  const chosen = tag === undefined ? available[available.length - 1] : nearestQdrantTag(tag, available);
  if (!chosen) return undefined;
  const choice = ensureUnpacked(chosen, sources);
  return chosen === tag || tag === undefined
    ? choice
    : {
        ...choice,
        substitute: `no Qdrant binary for ${tag} here; running ${chosen}, the nearest of ${tag.replace(/\.\d+$/, '')}`,
      };
}

/** The path of the binary for `tag` (or of the newest there is), or undefined for the stand-in. */
export function qdrantBinary(tag?: string): string | undefined {
  return resolveQdrantBinary(tag)?.path;
}

/** Every tag a real binary can serve here, in lookup order of the sources (empty with QDRANT_BIN: it serves them all). */
export function qdrantBinaryTags(sources: QdrantBinarySources = qdrantBinarySources()): string[] {
  return sources.bin ? [] : availableQdrantTags(sources);
}

/**
 * Where the tests expect a binary, for the message of a run that needs one.
 */
export function whereQdrantBinariesAreExpected(sources: QdrantBinarySources = qdrantBinarySources()): string {
  return (
    `QDRANT_BIN (one binary), or <tag>/qdrant in ${sources.versionsDir} (QDRANT_BIN_DIR), ` +
    `or <tag>/qdrant.gz in ${sources.sharedDir} (QDRANT_SHARED_DIR; tags with a pinned SHA-256: ${Object.keys(sources.checksums).join(', ')})`
  );
}

/**
 * For tests that have a real-Qdrant variant: the binary for `tag` (any, when
 * not given).
 * Without one they skip and say so (`warn`), except in CI (CI=true), where
 * the missing binary is an error naming where it is expected: a run that
 * silently replaced real Qdrant with the stand-in could land a change that
 * breaks the operator against the real thing.
 */
export function realQdrantBinary(
  what: string,
  tag?: string,
  // eslint-disable-next-line no-console
  warn: (message: string) => void = console.warn,
): string | undefined {
  const bin = qdrantBinary(tag);
  if (bin) return bin;
  const where = whereQdrantBinariesAreExpected();
  if (process.env.CI === 'true') {
    throw new Error(`${what} needs a real Qdrant binary${tag ? ` for ${tag}` : ''} and CI=true: none found. Expected ${where}`);
  }
  warn(`SKIPPED: ${what} needs a real Qdrant binary${tag ? ` for ${tag}` : ''}; expected ${where}`);
  return undefined;
}
