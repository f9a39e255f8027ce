import { InputError, NotAllowedError } from '@backstage/errors';
import { KubeApiError } from '@cv-platform/operator';

/**
 * Turns an API server rejection into the Backstage error the task log and the
 * scaffolder UI show, keeping the server's own message: it names the field and
 * the CRD/CEL rule that failed, which is what the user has to fix.
 */
export function toUserFacingError(error: unknown, what: string): unknown {
  if (!(error instanceof KubeApiError)) return error;
  const message =
    typeof error.body === 'object' && error.body?.message
      ? String(error.body.message)
      : error.message;
  switch (error.statusCode) {
    case 400:
    case 422:
      return new InputError(`The API server rejected ${what}: ${message}`);
    case 403:
      return new NotAllowedError(
        `The portal's Kubernetes identity may not write ${what}: ${message}`,
      );
    case 404:
      // A missing namespace is the user's to fix; a missing resource type
      // (the CRD is not installed) is the operator's.
      if (error.body?.details?.kind === 'namespaces') {
        return new InputError(
          `Namespace "${error.body.details.name}" does not exist: ${message}`,
        );
      }
      return new Error(
        `The InferencePlatform API is not served by this cluster (is the CRD installed?): ${message}`,
      );
    default:
      return error;
  }
}
