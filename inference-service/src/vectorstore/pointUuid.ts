import { createHash } from 'node:crypto';

// Fixed namespace so the same external id always maps to the same point.
const NAMESPACE = Buffer.from('6f0c3a52d9f84f3c9b3d2a7c1e5b8a90', 'hex');

/**
 * Qdrant ids must be unsigned integers or UUIDs; service ids are arbitrary
 * strings, so they are mapped to name-based (v5, SHA-1) UUIDs.
 */
export function pointUuid(id: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(id, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(
    16,
    20,
  )}-${h.slice(20)}`;
}
