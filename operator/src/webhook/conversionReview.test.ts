import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { BadReviewError, reviewConversion } from './conversionReview';

const review = (desiredAPIVersion: string, objects: unknown[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', desiredAPIVersion, objects },
});

describe('reviewConversion', () => {
  const a = sampleInferencePlatform('a', 'ns');
  const b = sampleInferencePlatform('b', 'ns');
  b.spec.inference.modelUrl = 's3://models/b.onnx';

  it('converts every object in order and echoes the uid', () => {
    expect(reviewConversion(review('cv.platform.tech/v1beta1', [a, b]))).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
        convertedObjects: [toV1beta1(a), toV1beta1(b)],
        result: { status: 'Success' },
      },
    });
  });

  it('fails the whole review with a message naming the object when one cannot be converted', () => {
    const broken = toV1beta1(b) as any;
    delete broken.spec.inference.model;
    expect(reviewConversion(review('cv.platform.tech/v1alpha1', [toV1beta1(a), broken])).response).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      result: {
        status: 'Failure',
        message: 'object 1 (ns/b): spec.inference.model.url is required to convert to v1alpha1',
      },
    });
    // Not only conversion errors: a malformed object fails the review, never the webhook.
    expect(reviewConversion(review('cv.platform.tech/v1beta1', [{ ...a, spec: { qdrant: 1, inference: null } }])).response?.result).toEqual({
      status: 'Failure',
      message: 'object 0 (ns/a): spec.qdrant and spec.inference are required',
    });
  });

  it('refuses what is not a ConversionReview v1', () => {
    expect(() => reviewConversion({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview' })).toThrow(
      new BadReviewError('expected a ConversionReview of apiextensions.k8s.io/v1, got kind "ConversionReview" of "apiextensions.k8s.io/v1beta1"'),
    );
    expect(() => reviewConversion({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'x' } })).toThrow(
      'request.uid, request.desiredAPIVersion and request.objects are required',
    );
  });
});
