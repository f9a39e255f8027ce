import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { downloadToCache } from './downloadToCache';
import { ModelFetchError } from './ModelFetchError';

describe('downloadToCache', () => {
  let cacheDir: string;
  beforeEach(() => {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'download-'));
  });
  afterEach(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

  it('writes the body to a new file in the cache directory', async () => {
    const got = await downloadToCache(
      Readable.from([Buffer.from('onnx'), Buffer.from('bytes')]),
      { cacheDir },
      'http://models/m.onnx',
    );
    expect(got).toMatchObject({
      temporary: true,
      source: 'http://models/m.onnx',
    });
    expect(fs.readFileSync(got.path, 'utf8')).toBe('onnxbytes');
  });

  it('leaves no file behind when the body fails before the file is open', async () => {
    // The body fails on its first read, racing the asynchronous open of the
    // file; repeated, so a cleanup that runs too early is caught.
    for (let i = 0; i < 30; i++) {
      const body = new Readable({
        read() {
          this.destroy(new Error('socket hang up'));
        },
      });
      await expect(
        downloadToCache(body, { cacheDir }, 'http://models/m.onnx'),
      ).rejects.toThrow(
        'http://models/m.onnx: download failed: socket hang up',
      );
    }
    // Give a late open the chance to show up.
    await new Promise(resolve => setTimeout(resolve, 100));
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });

  it('stops at the size limit and removes what it wrote', async () => {
    const body = Readable.from(
      Array.from({ length: 8 }, () => Buffer.alloc(512)),
    );
    await expect(
      downloadToCache(body, { cacheDir, maxBytes: 1000 }, 'm'),
    ).rejects.toEqual(
      new ModelFetchError('m: model is larger than 1000 bytes'),
    );
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });

  it('rejects an empty body', async () => {
    await expect(
      downloadToCache(Readable.from([]), { cacheDir }, 'm'),
    ).rejects.toThrow('m: empty model file');
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });
});
