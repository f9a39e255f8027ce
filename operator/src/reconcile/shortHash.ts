import { hash } from 'node:crypto';

/** 16 hex characters of SHA-256: enough to tell contents apart in names, annotations and paths. */
export function shortHash(text: string): string {
  // The one-shot form: every pass hashes every desired child, and a Hash object per call cost half of it.
  return hash('sha256', text, 'hex').slice(0, 16);
}
