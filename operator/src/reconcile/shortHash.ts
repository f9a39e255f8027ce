import { createHash } from 'node:crypto';

/** 16 hex characters of SHA-256: enough to tell contents apart in names, annotations and paths. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
