/**
 * Isomorphic pieces shared by the inference-platform frontend and backend.
 *
 * @packageDocumentation
 */
export * from './permissions';
export * from '@cv-platform/inference-platform-api';
export * from './api';
export * from './entities';
