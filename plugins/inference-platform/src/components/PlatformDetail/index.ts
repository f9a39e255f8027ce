export { PlatformDetailPage } from './PlatformDetailPage';
export { PlatformDetailContent } from './PlatformDetailContent';
