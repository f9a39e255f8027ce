/**
 * The InferencePlatform API (cv.platform.tech/v1alpha1): one source of truth
 * for the CRD schema, the TypeScript types and the defaults, imported by the
 * operator and by the Backstage plugins alike.
 */
export * from './types';
export * from './crd';
export * from './withDefaults';
export * from './samples';
export * from './renderCrd';
export * from './restore';
