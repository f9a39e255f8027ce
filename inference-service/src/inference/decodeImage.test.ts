import sharp from 'sharp';
import { decodeImage, ImageDecodeError } from './decodeImage';
import { hugePngHeader } from '../__testUtils__/badImages';

const opts = {
  width: 8,
  height: 6,
  fit: 'fill' as const,
  maxPixels: 10_000_000,
};

async function decodeError(bytes: Uint8Array): Promise<ImageDecodeError> {
  try {
    await decodeImage(bytes, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ImageDecodeError);
    return err as ImageDecodeError;
  }
  throw new Error('expected decodeImage to fail');
}

describe('decodeImage', () => {
  it('resizes to the model size as packed RGB', async () => {
    const png = await sharp({
      create: {
        width: 40,
        height: 30,
        channels: 3,
        background: { r: 255, g: 0, b: 10 },
      },
    })
      .png()
      .toBuffer();
    const px = await decodeImage(png, opts);
    expect(px).toHaveLength(8 * 6 * 3);
    expect(Array.from(px.subarray(0, 3))).toEqual([255, 0, 10]);
    // A fresh buffer the worker pool may transfer.
    expect(px.byteOffset).toBe(0);
    expect(px.buffer.byteLength).toBe(px.length);
  });

  it('expands greyscale and drops alpha', async () => {
    const grey = await sharp({
      create: {
        width: 5,
        height: 5,
        channels: 3,
        background: { r: 90, g: 90, b: 90 },
      },
    })
      .greyscale()
      .png()
      .toBuffer();
    expect(Array.from((await decodeImage(grey, opts)).subarray(0, 3))).toEqual([
      90, 90, 90,
    ]);
    const rgba = await sharp({
      create: {
        width: 5,
        height: 5,
        channels: 4,
        background: { r: 0, g: 200, b: 0, alpha: 1 },
      },
    })
      .png()
      .toBuffer();
    expect(Array.from((await decodeImage(rgba, opts)).subarray(0, 3))).toEqual([
      0, 200, 0,
    ]);
  });

  it('classifies garbage, truncated and oversized images', async () => {
    expect(
      (await decodeError(Buffer.from('definitely not an image'))).code,
    ).toBe('unsupported_image_format');
    const jpeg = await sharp({
      create: {
        width: 64,
        height: 64,
        channels: 3,
        background: { r: 1, g: 2, b: 3 },
      },
    })
      .jpeg()
      .toBuffer();
    expect(
      (await decodeError(jpeg.subarray(0, Math.floor(jpeg.length / 2)))).code,
    ).toBe('corrupt_image');
    expect((await decodeError(hugePngHeader(100_000, 100_000))).code).toBe(
      'image_dimensions_too_large',
    );
  });
});
