/**
 * Backstage backend plugin for InferencePlatforms: embeds the operator,
 * serves the REST API and the live SSE feed.
 *
 * @packageDocumentation
 */
export { inferencePlatformPlugin as default } from './plugin';
