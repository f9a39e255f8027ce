import { Entity } from '@backstage/catalog-model';
import { CatalogProcessorResult } from '@backstage/plugin-catalog-node';
import {
  PlatformClusters,
  PlatformDependencyProcessor,
} from './PlatformDependencyProcessor';

const component = (annotations: Record<string, string>): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'image-search', namespace: 'default', annotations },
  spec: {
    type: 'service',
    lifecycle: 'production',
    owner: 'group:default/vision',
  },
});

async function relationsOf(entity: Entity, clusters?: PlatformClusters) {
  const emitted: CatalogProcessorResult[] = [];
  await new PlatformDependencyProcessor(clusters).postProcessEntity(
    entity,
    { type: 'url', target: 'http://example.com/catalog-info.yaml' },
    r => emitted.push(r),
  );
  return emitted.map(r => (r.type === 'relation' ? r.relation : r));
}

describe('PlatformDependencyProcessor', () => {
  it('makes an entity naming a platform depend on its Resource, both ways', async () => {
    expect(
      await relationsOf(
        component({
          'cv.platform.tech/inference-platform': 'prod/image-retrieval',
        }),
      ),
    ).toEqual([
      {
        source: {
          kind: 'Component',
          namespace: 'default',
          name: 'image-search',
        },
        type: 'dependsOn',
        target: {
          kind: 'resource',
          namespace: 'default',
          name: 'prod.image-retrieval',
        },
      },
      {
        source: {
          kind: 'resource',
          namespace: 'default',
          name: 'prod.image-retrieval',
        },
        type: 'dependencyOf',
        target: {
          kind: 'Component',
          namespace: 'default',
          name: 'image-search',
        },
      },
    ]);
  });

  it('emits nothing without the annotation or with a malformed one', async () => {
    expect(await relationsOf(component({}))).toEqual([]);
    expect(
      await relationsOf(
        component({ 'cv.platform.tech/inference-platform': 'no-namespace' }),
      ),
    ).toEqual([]);
    expect(
      await relationsOf(
        component({ 'cv.platform.tech/inference-platform': 'a/b/c/d' }),
      ),
    ).toEqual([]);
    expect(
      await relationsOf(
        component({ 'cv.platform.tech/inference-platform': 'Prod/x' }),
      ),
    ).toEqual([]);
  });

  const dependsOnName = async (value: string, clusters?: PlatformClusters) =>
    (
      (await relationsOf(
        component({ 'cv.platform.tech/inference-platform': value }),
        clusters,
      )) as Array<{ type: string; target: { name: string } }>
    ).find(r => r.type === 'dependsOn')?.target.name;

  it('names the Resource with its cluster when the portal manages several', async () => {
    const several = { defaultCluster: 'east', several: true };
    expect(await dependsOnName('west/prod/search', several)).toBe(
      'west.prod.search',
    );
    // Without a cluster: the default one.
    expect(await dependsOnName('prod/search', several)).toBe(
      'east.prod.search',
    );
  });

  it('names it without the cluster on a single-cluster portal, even when the reference names that cluster', async () => {
    const one = { defaultCluster: 'east', several: false };
    expect(await dependsOnName('east/prod/search', one)).toBe('prod.search');
    expect(await dependsOnName('prod/search', one)).toBe('prod.search');
  });
});
