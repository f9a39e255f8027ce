import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {
  QdrantBinarySources,
  availableQdrantTags,
  nearestQdrantTag,
  realQdrantBinary,
  resolveQdrantBinary,
} from './qdrantBinaries';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

describe('resolveQdrantBinary', () => {
  let root: string;
  let sources: QdrantBinarySources;
  const shared = (tag: string, content: string) => {
    fs.mkdirSync(path.join(root, 'shared', tag), { recursive: true });
    fs.writeFileSync(path.join(root, 'shared', tag, 'qdrant.gz'), zlib.gzipSync(Buffer.from(content)));
    return sha(Buffer.from(content));
  };
  const versioned = (tag: string, content: string) => {
    fs.mkdirSync(path.join(root, 'versions', tag), { recursive: true });
    fs.writeFileSync(path.join(root, 'versions', tag, 'qdrant'), content, { mode: 0o755 });
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'qdrant-bins-'));
    sources = { versionsDir: path.join(root, 'versions'), sharedDir: path.join(root, 'shared'), checksums: {} };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('takes QDRANT_BIN first, for every tag, and refuses one that does not exist', () => {
    versioned('v1.14.1', 'versioned');
    const bin = path.join(root, 'one-qdrant');
    fs.writeFileSync(bin, 'x');
    expect(resolveQdrantBinary('v1.14.1', { ...sources, bin })).toEqual({ path: bin, from: 'QDRANT_BIN' });
    expect(resolveQdrantBinary('v1.99.0', { ...sources, bin })).toEqual({ path: bin, from: 'QDRANT_BIN' });
    expect(() => resolveQdrantBinary('v1.14.1', { ...sources, bin: `${bin}-missing` })).toThrow(/QDRANT_BIN=.*does not exist/);
  });

  it("takes the versions directory's <tag>/qdrant before the shared directory", () => {
    versioned('v1.14.1', 'versioned');
    sources.checksums = { 'v1.14.1': shared('v1.14.1', 'shared') };
    const choice = resolveQdrantBinary('v1.14.1', sources)!;
    expect(choice).toEqual({ path: path.join(root, 'versions', 'v1.14.1', 'qdrant'), tag: 'v1.14.1', from: 'versions directory' });
    expect(fs.readFileSync(choice.path, 'utf8')).toBe('versioned');
  });

  it('unpacks the shared directory\'s <tag>/qdrant.gz into the versions directory once, checksum verified, executable', () => {
    sources.checksums = { 'v1.13.6': shared('v1.13.6', 'qdrant 1.13.6') };
    const first = resolveQdrantBinary('v1.13.6', sources)!;
    expect(first).toEqual({ path: path.join(root, 'versions', 'v1.13.6', 'qdrant'), tag: 'v1.13.6', from: 'shared directory' });
    expect(fs.readFileSync(first.path, 'utf8')).toBe('qdrant 1.13.6');
    expect(fs.statSync(first.path).mode & 0o111).toBe(0o111);
    expect(fs.readdirSync(path.dirname(first.path))).toEqual(['qdrant']);
    // Once: the second lookup finds the unpacked file, the gz is not read again.
    fs.rmSync(path.join(root, 'shared', 'v1.13.6', 'qdrant.gz'));
    fs.writeFileSync(path.join(root, 'shared', 'v1.13.6', 'qdrant.gz'), 'not gzip');
    expect(resolveQdrantBinary('v1.13.6', sources)!.from).toBe('versions directory');
  });

  it('refuses a shared binary whose checksum does not match, or that has no pinned checksum, and leaves nothing behind', () => {
    shared('v1.14.1', 'tampered');
    sources.checksums = { 'v1.14.1': sha(Buffer.from('the real one')) };
    expect(() => resolveQdrantBinary('v1.14.1', sources)).toThrow(/SHA-256 is [0-9a-f]{64}, expected [0-9a-f]{64} for Qdrant v1\.14\.1/);
    sources.checksums = {};
    expect(() => resolveQdrantBinary('v1.14.1', sources)).toThrow(/no pinned SHA-256 for Qdrant v1\.14\.1/);
    expect(fs.existsSync(path.join(root, 'versions', 'v1.14.1', 'qdrant'))).toBe(false);
  });

  it('serves a tag without a binary with the nearest of its minor, and says so; another minor gets none (the stand-in)', () => {
    versioned('v1.14.1', 'a');
    sources.checksums = { 'v1.13.6': shared('v1.13.6', 'b') };
    expect(availableQdrantTags(sources)).toEqual(['v1.13.6', 'v1.14.1']);
    const sub = resolveQdrantBinary('v1.14.0', sources)!;
    expect(sub.tag).toBe('v1.14.1');
    expect(sub.substitute).toBe('no Qdrant binary for v1.14.0 here; running v1.14.1, the nearest of v1.14');
    expect(resolveQdrantBinary('v1.13.2', sources)!.tag).toBe('v1.13.6');
    expect(resolveQdrantBinary('v1.15.0', sources)).toBeUndefined();
    expect(resolveQdrantBinary('latest', sources)).toBeUndefined();
    // No tag: the newest there is.
    expect(resolveQdrantBinary(undefined, sources)!.tag).toBe('v1.14.1');
  });

  it('finds nothing without any source', () => {
    expect(resolveQdrantBinary('v1.14.1', sources)).toBeUndefined();
    expect(resolveQdrantBinary(undefined, { ...sources, sharedDir: undefined })).toBeUndefined();
  });
});

describe('nearestQdrantTag', () => {
  it('takes the exact tag, else the nearest patch of the minor, the higher on a tie', () => {
    const tags = ['v1.13.6', 'v1.14.0', 'v1.14.4', 'v1.14.9'];
    expect(nearestQdrantTag('v1.14.4', tags)).toBe('v1.14.4');
    expect(nearestQdrantTag('v1.14.1', tags)).toBe('v1.14.0');
    expect(nearestQdrantTag('v1.14.2', tags)).toBe('v1.14.4');
    expect(nearestQdrantTag('v1.14.7', tags)).toBe('v1.14.9');
    expect(nearestQdrantTag('v1.14.30', tags)).toBe('v1.14.9');
    expect(nearestQdrantTag('v1.12.0', tags)).toBeUndefined();
  });
});

describe('realQdrantBinary', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('skips loudly without a binary outside CI, and fails in CI naming where it is expected', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'qdrant-none-'));
    delete process.env.QDRANT_BIN;
    process.env.QDRANT_BIN_DIR = path.join(empty, 'versions');
    process.env.QDRANT_SHARED_DIR = path.join(empty, 'shared');
    const warnings: string[] = [];
    process.env.CI = 'false';
    expect(realQdrantBinary('the upgrade test', 'v1.14.1', m => warnings.push(m))).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^SKIPPED: the upgrade test needs a real Qdrant binary for v1\.14\.1; expected QDRANT_BIN/)]);
    process.env.CI = 'true';
    expect(() => realQdrantBinary('the upgrade test', 'v1.14.1', m => warnings.push(m))).toThrow(
      new RegExp(`needs a real Qdrant binary for v1\\.14\\.1 and CI=true: none found\\. Expected .*${path.join(empty, 'shared')}`),
    );
    fs.rmSync(empty, { recursive: true });
  });
});
