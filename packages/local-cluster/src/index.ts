export { LocalCluster, ensureBinaries, findRepoRoot } from './LocalCluster';
export type { LocalClusterOptions } from './LocalCluster';
export { ApiRequester } from './ApiRequester';
export { freePort } from './freePort';
export * from './fakeNodes';
export { UNREACHABLE_MODEL_HOST_SUFFIX } from './kwokConfig';
export * from './testCluster';
