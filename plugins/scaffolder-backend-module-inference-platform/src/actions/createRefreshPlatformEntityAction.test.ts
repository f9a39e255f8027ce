import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { createRefreshPlatformEntityAction } from './createRefreshPlatformEntityAction';

jest.setTimeout(30_000);

const entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Resource',
  metadata: { name: 'vision.search', namespace: 'default' },
  spec: { type: 'inference-platform', owner: 'group:default/ml-platform' },
};

function setup(isDryRun = false) {
  const catalog = catalogServiceMock.mock();
  const action = createRefreshPlatformEntityAction({
    catalog,
    pollIntervalMs: 10,
  });
  const ctx: any = {
    ...createMockActionContext({
      input: { namespace: 'vision', name: 'search', timeoutSeconds: 1 },
    }),
    isDryRun,
  };
  return { catalog, ctx, run: () => action.handler(ctx) };
}

describe('inference-platform:catalog:refresh', () => {
  it('waits for the entity the backend publishes, then refreshes it', async () => {
    const { catalog, ctx, run } = setup();
    catalog.getEntityByRef
      .mockResolvedValueOnce(undefined)
      .mockResolvedValueOnce(undefined)
      .mockResolvedValue(entity);
    await run();
    expect(catalog.getEntityByRef).toHaveBeenCalledTimes(3);
    expect(catalog.getEntityByRef).toHaveBeenCalledWith(
      'resource:default/vision.search',
      expect.objectContaining({ credentials: expect.anything() }),
    );
    expect(catalog.refreshEntity).toHaveBeenCalledWith(
      'resource:default/vision.search',
      expect.objectContaining({ credentials: expect.anything() }),
    );
    expect(ctx.output).toHaveBeenCalledWith(
      'entityRef',
      'resource:default/vision.search',
    );
  });

  it('explains what is missing when the entity never appears', async () => {
    const { catalog, run } = setup();
    catalog.getEntityByRef.mockResolvedValue(undefined);
    await expect(run()).rejects.toMatchObject({
      name: 'NotFoundError',
      message: expect.stringMatching(
        /resource:default\/vision\.search did not appear in the catalog within 1 s.*inference-platform backend plugin/,
      ),
    });
    expect(catalog.refreshEntity).not.toHaveBeenCalled();
  });

  it('only outputs the ref in a dry run', async () => {
    const { catalog, ctx, run } = setup(true);
    await run();
    expect(catalog.getEntityByRef).not.toHaveBeenCalled();
    expect(catalog.refreshEntity).not.toHaveBeenCalled();
    expect(ctx.output).toHaveBeenCalledWith(
      'entityRef',
      'resource:default/vision.search',
    );
  });
});
