import { Request } from 'express';
import { HttpError } from './HttpError';

export interface ImageRequest {
  image: Buffer;
  /** Non-file multipart fields, or the query string for raw bodies. */
  fields: Record<string, string>;
}

const RAW_TYPES = /^(image\/[a-z0-9.+-]+|application\/octet-stream)$/;

/**
 * Accepts an image either as the raw body (image/* or octet-stream, other
 * parameters in the query string) or as multipart/form-data with an `image`
 * file part and text fields. The body was already read with a byte limit.
 */
export async function parseImageRequest(
  req: Request,
  maxImageBytes: number,
): Promise<ImageRequest> {
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  const mediaType = contentType.split(';')[0].trim();
  const body: Buffer | undefined = Buffer.isBuffer(req.body)
    ? req.body
    : undefined;
  if (!mediaType) {
    throw new HttpError(
      415,
      'unsupported_content_type',
      'missing Content-Type: send image/* , application/octet-stream or multipart/form-data',
    );
  }
  const isMultipart = mediaType === 'multipart/form-data';
  if (!isMultipart && !RAW_TYPES.test(mediaType)) {
    throw new HttpError(
      415,
      'unsupported_content_type',
      `Content-Type ${mediaType} is not accepted: send image/*, application/octet-stream or multipart/form-data`,
    );
  }
  if (!body || body.length === 0)
    throw new HttpError(400, 'empty_body', 'the request body is empty');

  if (!isMultipart) {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.query))
      if (typeof v === 'string') fields[k] = v;
    return { image: checkSize(body, maxImageBytes), fields };
  }

  let form: FormData;
  try {
    // undici's multipart parser: no extra dependency, and the input is
    // already bounded by the body limit.
    form = await new Response(body, {
      headers: { 'content-type': contentType },
    }).formData();
  } catch (err) {
    throw new HttpError(
      400,
      'invalid_multipart',
      `malformed multipart body: ${(err as Error).message}`,
    );
  }
  const fields: Record<string, string> = {};
  let file: Blob | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else if (name === 'image' || !file) file = value;
  }
  if (!file)
    throw new HttpError(
      400,
      'missing_image',
      'multipart body has no file part (expected a field named "image")',
    );
  const image = Buffer.from(await file.arrayBuffer());
  if (image.length === 0)
    throw new HttpError(400, 'empty_body', 'the image part is empty');
  return { image: checkSize(image, maxImageBytes), fields };
}

function checkSize(image: Buffer, max: number): Buffer {
  if (image.length > max) {
    throw new HttpError(
      413,
      'payload_too_large',
      `image is ${image.length} bytes; the limit is ${max}`,
    );
  }
  return image;
}
