import sharp from 'sharp';

// One libvips thread per image: parallelism comes from decoding several
// requests at once on the libuv pool, and the inference workers need the
// remaining cores.
sharp.concurrency(1);
sharp.cache(false);

export type ResizeFit = 'fill' | 'cover' | 'contain';

export interface DecodeOptions {
  width: number;
  height: number;
  fit: ResizeFit;
  /** Decompression-bomb guard, checked against the header before decoding. */
  maxPixels: number;
}

export type ImageErrorCode =
  | 'unsupported_image_format'
  | 'corrupt_image'
  | 'image_dimensions_too_large';

/** The bytes are not a usable image; maps to a 4xx response. */
export class ImageDecodeError extends Error {
  constructor(readonly code: ImageErrorCode, message: string) {
    super(message);
  }
}

function classify(err: Error): ImageDecodeError {
  const m = err.message;
  if (/pixel limit/i.test(m)) {
    return new ImageDecodeError(
      'image_dimensions_too_large',
      `image dimensions exceed the limit: ${m}`,
    );
  }
  if (/unsupported image format|bad seek|not a known file format/i.test(m)) {
    return new ImageDecodeError(
      'unsupported_image_format',
      'the body is not a supported image (JPEG, PNG, WebP, GIF, TIFF, AVIF)',
    );
  }
  return new ImageDecodeError(
    'corrupt_image',
    `the image could not be decoded: ${m}`,
  );
}

/**
 * Decodes an encoded image to the model's input size as packed RGB (HWC,
 * uint8) in a fresh, transferable ArrayBuffer. EXIF orientation is applied,
 * alpha is flattened onto black and greyscale is expanded to 3 channels.
 */
export async function decodeImage(
  bytes: Uint8Array,
  options: DecodeOptions,
): Promise<Uint8Array> {
  let raw: { data: Buffer; info: sharp.OutputInfo };
  try {
    raw = await sharp(bytes, {
      limitInputPixels: options.maxPixels,
      // Truncated or corrupt files must fail rather than decode as grey.
      failOn: 'warning',
      sequentialRead: true,
    })
      .rotate()
      .flatten({ background: { r: 0, g: 0, b: 0 } })
      .resize(options.width, options.height, {
        fit: options.fit,
        background: { r: 0, g: 0, b: 0 },
      })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw classify(err as Error);
  }
  const { data, info } = raw;
  if (
    info.channels !== 3 ||
    info.width !== options.width ||
    info.height !== options.height
  ) {
    throw new ImageDecodeError(
      'corrupt_image',
      `decoded to ${info.width}x${info.height}x${info.channels}, expected ${options.width}x${options.height}x3`,
    );
  }
  const pixels = new Uint8Array(data.length);
  pixels.set(data);
  return pixels;
}
