import { Entity } from '@backstage/catalog-model';
import {
  isInferencePlatformAvailable,
  platformOfEntity,
} from './platformAnnotation';

const entity = (value?: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'search',
    annotations:
      value === undefined
        ? {}
        : { 'cv.platform.tech/inference-platform': value },
  },
});

describe('platform annotation', () => {
  it('reads <namespace>/<name>', () => {
    expect(platformOfEntity(entity('team-a/search-prod'))).toEqual({
      namespace: 'team-a',
      name: 'search-prod',
    });
    expect(isInferencePlatformAvailable(entity(' team-a/x '))).toBe(true);
  });

  it('reads <cluster>/<namespace>/<name>', () => {
    expect(platformOfEntity(entity('eu-west/team-a/search-prod'))).toEqual({
      cluster: 'eu-west',
      namespace: 'team-a',
      name: 'search-prod',
    });
    expect(platformOfEntity(entity('team-a/search-prod'))).not.toHaveProperty(
      'cluster',
    );
  });

  it.each([
    undefined,
    '',
    'search-prod',
    'a/b/c/d',
    'Team/X',
    'Prod/a/b',
    '/x',
    'a/',
    '/a/b',
  ])('rejects %p', value => {
    expect(isInferencePlatformAvailable(entity(value))).toBe(false);
  });
});
