import { ConversionError, convertPlatform } from '@cv-platform/inference-platform-api';

export interface ConversionReview {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'ConversionReview';
  request?: { uid: string; desiredAPIVersion: string; objects: unknown[] };
  response?: {
    uid: string;
    convertedObjects?: unknown[];
    result: { status: 'Success' | 'Failure'; message?: string };
  };
}

/** A review that is not one: the webhook answers 400 with this message. */
export class BadReviewError extends Error {}

/**
 * Answers a ConversionReview (apiextensions.k8s.io/v1): every object
 * converted in order, the request's uid echoed. One object that cannot be
 * converted fails the review with a message (the API server passes it on to
 * the client), never a 500: the objects of one review go back together or
 * not at all.
 */
export function reviewConversion(review: any): ConversionReview {
  if (review?.apiVersion !== 'apiextensions.k8s.io/v1' || review?.kind !== 'ConversionReview') {
    throw new BadReviewError(
      `expected a ConversionReview of apiextensions.k8s.io/v1, got kind ${JSON.stringify(review?.kind)} of ${JSON.stringify(review?.apiVersion)}`,
    );
  }
  const req = review.request;
  if (typeof req?.uid !== 'string' || typeof req.desiredAPIVersion !== 'string' || !Array.isArray(req.objects)) {
    throw new BadReviewError('request.uid, request.desiredAPIVersion and request.objects are required');
  }
  const response = (result: NonNullable<ConversionReview['response']>) => ({
    apiVersion: 'apiextensions.k8s.io/v1' as const,
    kind: 'ConversionReview' as const,
    response: result,
  });
  const convertedObjects: unknown[] = [];
  for (const [i, obj] of req.objects.entries()) {
    try {
      convertedObjects.push(convertPlatform(obj, req.desiredAPIVersion));
    } catch (e) {
      // Any error, not only a ConversionError: a malformed object must fail
      // the review with a reason, not the webhook with a 500.
      const reason = e instanceof ConversionError ? e.message : `cannot convert: ${e instanceof Error ? e.message : e}`;
      const name = obj?.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj?.metadata?.name;
      return response({
        uid: req.uid,
        result: { status: 'Failure', message: `object ${i}${name ? ` (${name})` : ''}: ${reason}` },
      });
    }
  }
  return response({ uid: req.uid, convertedObjects, result: { status: 'Success' } });
}
