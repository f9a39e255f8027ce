import { Payload } from '../vectorstore/VectorStore';
import { ID_KEY } from '../vectorstore/QdrantVectorStore';
import { HttpError } from './HttpError';

export function parseId(value: string | undefined): string {
  if (value === undefined || value === '')
    throw new HttpError(400, 'missing_id', 'an id is required');
  const hasControlChars = [...value].some(
    ch => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f,
  );
  if (value.length > 256 || hasControlChars) {
    throw new HttpError(
      400,
      'invalid_id',
      'id must be 1-256 characters without control characters',
    );
  }
  return value;
}

export function parseJsonObject(
  value: string | undefined,
  name: string,
): Record<string, unknown> | undefined {
  if (value === undefined || value === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new HttpError(
      400,
      `invalid_${name}`,
      `${name} must be a JSON object`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(
      400,
      `invalid_${name}`,
      `${name} must be a JSON object`,
    );
  }
  return parsed as Record<string, unknown>;
}

export function parsePayload(value: string | undefined): Payload {
  return parsePayloadObject(parseJsonObject(value, 'payload'));
}

/** A payload given as a JSON value (a batch item's, or parsePayload's once parsed). */
export function parsePayloadObject(value: unknown): Payload {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_payload', 'payload must be a JSON object');
  }
  if (ID_KEY in value)
    throw new HttpError(400, 'invalid_payload', `payload key ${ID_KEY} is reserved`);
  return { ...(value as Payload) };
}

/** A URL the service may be asked to read: s3://, http:// or https://, never a local path. */
export function parseFetchableUrl(
  value: unknown,
  code: string,
  field: string,
): string | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'string' ||
    value.length > 2048 ||
    !/^(s3|https?):\/\/[^\s]+$/.test(value)
  ) {
    throw new HttpError(
      400,
      code,
      `${field} must be an s3://, http:// or https:// URL`,
    );
  }
  return value;
}
