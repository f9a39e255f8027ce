import { ResponseError } from '@backstage/errors';

/**
 * A sentence for the user: the server's own message (for a 400 that is the
 * API server's validation message) plus what to do about the status code.
 */
export function describeError(error: unknown): string {
  if (ResponseError.is(error)) {
    const detail = error.cause?.message || error.statusText;
    switch (error.statusCode) {
      case 403:
        return `Not allowed: ${detail}. Ask an administrator for the permission.`;
      case 404:
        return `Not found: ${detail}. The platform may have been deleted meanwhile.`;
      case 409:
        return `Conflict: ${detail}. Someone changed the platform meanwhile; check the new values and try again.`;
      case 400:
      case 422:
        return `Rejected: ${detail}`;
      default:
        return `The backend answered ${error.statusCode}: ${detail}`;
    }
  }
  // Duck-typed: errors from another realm (iframes, test DOMs) fail instanceof.
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}
