/**
 * Image embedding service: ONNX model in worker threads, vectors in Qdrant
 * or an embedded store.
 *
 * @packageDocumentation
 */
export { loadConfig, ConfigError } from './config/loadConfig';
export type { ServiceConfig } from './config/loadConfig';
export { createApp } from './http/createApp';
export type { AppDeps, Readiness } from './http/createApp';
export { createService } from './server/createService';
export type {
  Service,
  ServiceOverrides,
  ReloadResult,
} from './server/createService';
export { startServer } from './server/startServer';
export type { RunningServer } from './server/startServer';
export { describeModel } from './model/describeModel';
export type { ModelSpec } from './model/describeModel';
export { fetchModel } from './model/fetchModel';
export { LocalVectorStore } from './vectorstore/LocalVectorStore';
export { QdrantVectorStore } from './vectorstore/QdrantVectorStore';
export { DimensionMismatchError } from './vectorstore/VectorStore';
export type {
  VectorStore,
  SearchHit,
  PayloadFilter,
  Payload,
} from './vectorstore/VectorStore';
