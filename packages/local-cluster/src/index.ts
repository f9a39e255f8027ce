export { LocalCluster, ensureBinaries, findRepoRoot } from './LocalCluster';
export type { LocalClusterOptions } from './LocalCluster';
export { ApiRequester } from './ApiRequester';
export { freePort } from './freePort';
export * from './fakeNodes';
export * from './testCluster';
export { NODE_NETWORK, podNetnsName, podProcesses } from './realNode/hostNetwork';
export { REAL_NODE_NAME } from './realNode/RealNode';
export { qdrantBinary } from './realNode/imageMap';
