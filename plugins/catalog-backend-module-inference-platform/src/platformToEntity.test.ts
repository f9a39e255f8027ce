import { sampleInferencePlatform } from '@cv-platform/plugin-inference-platform-common';
import { platformToEntity } from './platformToEntity';

const defaults = {
  appBaseUrl: 'http://portal',
  defaultOwner: 'group:default/ml-platform',
  providerName: 'inference-platform-west',
};

describe('platformToEntity', () => {
  it('names a platform of one of several clusters with its cluster, and links and refers to it there', () => {
    const e = platformToEntity(sampleInferencePlatform('search', 'prod'), {
      ...defaults,
      cluster: 'west',
      severalClusters: true,
    });
    expect(e.metadata.name).toBe('west.prod.search');
    expect(e.metadata.title).toBe('search (west/prod)');
    expect(e.metadata.annotations).toMatchObject({
      'cv.platform.tech/inference-platform': 'west/prod/search',
      'cv.platform.tech/cluster': 'west',
      'backstage.io/managed-by-location': 'inference-platform-west:west/prod/search',
      'backstage.io/kubernetes-namespace': 'prod',
    });
    expect(e.metadata.links?.[0].url).toBe('http://portal/inference-platforms/prod/search?cluster=west');
  });

  it('keeps the names of a single-cluster portal', () => {
    const e = platformToEntity(sampleInferencePlatform('search', 'prod'), {
      ...defaults,
      providerName: 'inference-platform',
      cluster: 'default',
    });
    expect(e.metadata.name).toBe('prod.search');
    expect(e.metadata.annotations).toMatchObject({
      'cv.platform.tech/inference-platform': 'prod/search',
      'cv.platform.tech/cluster': 'default',
    });
    expect(e.metadata.links?.[0].url).toBe('http://portal/inference-platforms/prod/search');
  });
});
