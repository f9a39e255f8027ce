export { PlatformListPage } from './PlatformListPage';
export { PlatformList } from './PlatformList';
