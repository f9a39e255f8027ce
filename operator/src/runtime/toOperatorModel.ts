import {
  ConversionError,
  InferencePlatform,
  InferencePlatformV1beta1,
  V1ALPHA1_FIELDS_ANNOTATION,
  toV1alpha1,
} from '@cv-platform/inference-platform-api';

/**
 * A platform as read (v1beta1, the storage version) in the spec layout the
 * reconcilers work with (v1alpha1's, losslessly converted), keeping the
 * version it was read at: owner references, Events and status writes name
 * that one. Pure conversion: no webhook is involved.
 */
export function toOperatorModel(obj: InferencePlatformV1beta1): InferencePlatform {
  try {
    return { ...toV1alpha1(obj), apiVersion: obj.apiVersion };
  } catch (e) {
    // A hand-edited v1alpha1-fields annotation must not hide the platform:
    // without it, v1beta1's own fields are all there is to reconcile.
    if (!(e instanceof ConversionError) || !obj.metadata.annotations?.[V1ALPHA1_FIELDS_ANNOTATION]) throw e;
    const { [V1ALPHA1_FIELDS_ANNOTATION]: _bad, ...annotations } = obj.metadata.annotations;
    return { ...toV1alpha1({ ...obj, metadata: { ...obj.metadata, annotations } }), apiVersion: obj.apiVersion };
  }
}
