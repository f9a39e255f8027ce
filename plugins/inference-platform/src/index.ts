/**
 * Live dashboard of InferencePlatforms for Backstage.
 *
 * @packageDocumentation
 */
export { inferencePlatformPlugin, InferencePlatformsPage } from './plugin';
