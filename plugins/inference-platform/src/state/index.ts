export { PlatformsState } from './PlatformsState';
export type { PlatformAtom } from './PlatformsState';
export {
  PlatformsStateProvider,
  usePlatformsState,
} from './PlatformsStateProvider';
export { createListView } from './listView';
export type { ListView, Sort, SortColumn, SortDirection } from './listView';
export { platformKey, parsePlatformKey } from './platformKey';
export type { PlatformKey } from './platformKey';
export { qdrantReadiness, inferenceReadiness } from './readiness';
export type { Readiness } from './readiness';
export { createFeedBatcher } from './createFeedBatcher';
