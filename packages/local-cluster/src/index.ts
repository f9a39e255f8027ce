export { LocalCluster, ensureBinaries } from './LocalCluster';
export { findRepoRoot } from './findRepoRoot';
export type { LocalClusterOptions } from './LocalCluster';
export { ApiRequester } from './ApiRequester';
export { freePort } from './freePort';
export * from './fakeNodes';
export * from './testCluster';
export { NODE_NETWORK, podNetnsName, podProcesses } from './realNode/hostNetwork';
export { REAL_NODE_NAME } from './realNode/RealNode';
export {
  qdrantBinary,
  qdrantBinaryTags,
  resolveQdrantBinary,
  nearestQdrantTag,
  realQdrantBinary,
  whereQdrantBinariesAreExpected,
} from './realNode/qdrantBinaries';
export type { QdrantBinaryChoice, QdrantBinarySources } from './realNode/qdrantBinaries';
export { QdrantClusterDouble, closeServer } from './simulatedQdrant/QdrantClusterDouble';
export type { RecordedCall } from './simulatedQdrant/QdrantClusterDouble';
export { SimulatedQdrant } from './simulatedQdrant/SimulatedQdrant';
export { S3TestServer, ensureVersitygw, VERSITYGW_VERSION } from './s3/S3TestServer';
export { thirdPartyCrds } from './thirdPartyCrds';
export type { ThirdParty } from './thirdPartyCrds';
export { ensureHelm } from './ensureHelm';
export { boundServiceAccount } from './boundServiceAccount';
export { grantedPermissions, rbacPermission } from './rbacPermission';
export type { BoundServiceAccount } from './boundServiceAccount';
