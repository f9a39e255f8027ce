import { Entity } from '@backstage/catalog-model';
import { CatalogProcessorResult } from '@backstage/plugin-catalog-node';
import { PlatformDependencyProcessor } from './PlatformDependencyProcessor';

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

async function relationsOf(entity: Entity) {
  const emitted: CatalogProcessorResult[] = [];
  await new PlatformDependencyProcessor().postProcessEntity(
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
        component({ 'cv.platform.tech/inference-platform': 'a/b/c' }),
      ),
    ).toEqual([]);
  });
});
