import { HttpError } from './HttpError';

/** Passes a write this server has applied on to the servers of another model version; false when a delete found nothing there. */
export type ForwardWrite = (write: {
  method: 'POST' | 'DELETE';
  path: string;
  body?: Buffer;
  contentType?: string;
}) => Promise<boolean>;

const TIMEOUT_MS = 10_000;

/**
 * A canary's servers keep their own collection, and every write they take
 * is also sent to the stable servers (WRITE_FORWARD_URL, their Service), so
 * the stable collection loses none of the writes the traffic split sends to
 * the canary. A write the stable servers did not take fails the request
 * (502): the client retries, and indexing by id is idempotent.
 */
export function forwardWrites(baseUrl: string): ForwardWrite {
  const base = baseUrl.replace(/\/+$/, '');
  return async ({ method, path, body, contentType }) => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: contentType ? { 'Content-Type': contentType } : undefined,
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as any)?.cause?.code ?? (err as Error).message;
      throw new HttpError(
        502,
        'write_forward_failed',
        `applied here, but the stable servers (${base}) were not reached: ${cause}; retry the request`,
      );
    }
    // A delete the stable servers do not know is already done there.
    if (res.ok || (method === 'DELETE' && res.status === 404)) {
      await res.arrayBuffer();
      return res.ok;
    }
    const answer: any = await res.json().catch(() => undefined);
    throw new HttpError(
      502,
      'write_forward_failed',
      `applied here, but the stable servers (${base}) answered ${res.status}: ${
        answer?.error?.message ?? res.statusText
      }; retry the request`,
    );
  };
}
