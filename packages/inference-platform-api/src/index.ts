/**
 * The InferencePlatform API (cv.platform.tech/v1beta1, stored, and v1alpha1): one source of truth
 * for the CRD schema, the TypeScript types and the defaults, imported by the
 * operator and by the Backstage plugins alike.
 */
export * from './types';
export * from './crd';
export * from './inferencePlatformCrd';
export * from './v1beta1/types';
export * from './v1beta1/schema';
export * from './conversion/convertPlatform';
export * from './withDefaults';
export * from './samples';
export * from './renderCrd';
export * from './restore';
