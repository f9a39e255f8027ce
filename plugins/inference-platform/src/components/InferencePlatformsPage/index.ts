export { InferencePlatformsPage } from './InferencePlatformsPage';
