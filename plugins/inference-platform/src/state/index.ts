export { PlatformsState } from './PlatformsState';
export type { PlatformAtom, PlatformUpdate } from './PlatformsState';
export {
  combineStatuses,
  PlatformsStateProvider,
  usePlatformsState,
} from './PlatformsStateProvider';
export { createListView } from './listView';
export type { ListView, Sort, SortColumn, SortDirection } from './listView';
export {
  platformKey,
  platformRefOf,
  parsePlatformKey,
  refKey,
} from './platformKey';
export type { PlatformKey } from './platformKey';
export { qdrantReadiness, inferenceReadiness } from './readiness';
export type { Readiness } from './readiness';
export { createFeedBatcher } from './createFeedBatcher';
