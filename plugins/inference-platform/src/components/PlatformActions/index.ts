export { PlatformActions } from './PlatformActions';
