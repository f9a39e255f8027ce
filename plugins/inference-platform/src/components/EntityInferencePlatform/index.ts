export { EntityInferencePlatformCard } from './EntityInferencePlatformCard';
export { EntityInferencePlatformContent } from './EntityInferencePlatformContent';
export {
  isInferencePlatformAvailable,
  platformOfEntity,
} from './platformAnnotation';
