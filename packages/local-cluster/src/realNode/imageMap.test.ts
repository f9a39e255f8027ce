import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { imageMap } from './imageMap';

describe('imageMap: qdrant/qdrant by tag', () => {
  const saved = { ...process.env };
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'image-map-'));
    delete process.env.QDRANT_BIN;
    process.env.QDRANT_BIN_DIR = path.join(root, 'versions');
    process.env.QDRANT_SHARED_DIR = path.join(root, 'shared');
  });
  afterEach(() => {
    process.env = { ...saved };
    fs.rmSync(root, { recursive: true, force: true });
  });
  const binary = (tag: string) => {
    fs.mkdirSync(path.join(root, 'versions', tag), { recursive: true });
    fs.writeFileSync(path.join(root, 'versions', tag, 'qdrant'), tag, { mode: 0o755 });
    return path.join(root, 'versions', tag, 'qdrant');
  };
  const qdrantEntries = () =>
    imageMap('/repo', path.join(root, 'work')).images.filter(i => i.pattern.startsWith('qdrant/'));
  const script = (e: { files?: Record<string, string> }) => fs.readFileSync(path.join(e.files!['/qdrant'], 'entrypoint.sh'), 'utf8');

  it('runs each tag on its own binary, other patches of its minor on the nearest (saying so), any other tag on the stand-in', () => {
    const b13 = binary('v1.13.6');
    const b14 = binary('v1.14.1');
    const entries = qdrantEntries();
    const byPattern = Object.fromEntries(entries.map(e => [e.pattern, e]));
    // First match wins in the node agent: exact tags, then substitutes, then the stand-in last.
    expect(entries.map(e => e.pattern)).toEqual([
      'qdrant/qdrant:v1.13.6',
      'qdrant/qdrant:v1.14.1',
      'qdrant/qdrant:v1.13.0',
      'qdrant/qdrant:v1.13.1',
      'qdrant/qdrant:v1.13.2',
      'qdrant/qdrant:v1.13.3',
      'qdrant/qdrant:v1.13.4',
      'qdrant/qdrant:v1.13.5',
      'qdrant/qdrant:v1.13.*',
      'qdrant/qdrant:v1.14.0',
      'qdrant/qdrant:v1.14.*',
      'qdrant/qdrant:*',
    ]);
    expect(byPattern['qdrant/qdrant:v1.13.6'].files!['/qdrant/qdrant']).toBe(b13);
    expect(byPattern['qdrant/qdrant:v1.14.1'].files!['/qdrant/qdrant']).toBe(b14);
    expect(script(byPattern['qdrant/qdrant:v1.14.1'])).not.toMatch(/nearest/);
    expect(byPattern['qdrant/qdrant:v1.14.0'].files!['/qdrant/qdrant']).toBe(b14);
    expect(script(byPattern['qdrant/qdrant:v1.14.0'])).toContain(
      'echo "qdrant image qdrant/qdrant:v1.14.0: no Qdrant binary for this tag here; running v1.14.1, the nearest of v1.14" >&2',
    );
    expect(byPattern['qdrant/qdrant:v1.13.*'].files!['/qdrant/qdrant']).toBe(b13);
    expect(byPattern['qdrant/qdrant:*'].files!['/qdrant/qdrant']).toBeUndefined();
    expect(script(byPattern['qdrant/qdrant:*'])).toContain('qdrantStandIn.ts');
  });

  it('runs QDRANT_BIN for every tag', () => {
    binary('v1.14.1');
    const bin = path.join(root, 'mine');
    fs.writeFileSync(bin, '');
    process.env.QDRANT_BIN = bin;
    const entries = qdrantEntries();
    expect(entries.map(e => [e.pattern, e.files!['/qdrant/qdrant']])).toEqual([['qdrant/qdrant:*', bin]]);
  });

  it('runs the stand-in for every tag without any binary', () => {
    const entries = qdrantEntries();
    expect(entries.map(e => e.pattern)).toEqual(['qdrant/qdrant:*']);
    expect(script(entries[0])).toContain('qdrantStandIn.ts');
  });
});
