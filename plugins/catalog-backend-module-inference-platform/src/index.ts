/**
 * Catalog module for InferencePlatforms: each platform becomes a Resource
 * entity (annotated for the Kubernetes plugin), and entities naming a
 * platform depend on it. Default export, so feature discovery installs it.
 *
 * @packageDocumentation
 */
export { catalogModuleInferencePlatform as default } from './catalogModuleInferencePlatform';
export { catalogModuleInferencePlatform } from './catalogModuleInferencePlatform';
