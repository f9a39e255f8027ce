import '@testing-library/jest-dom';
import { act, screen, waitFor } from '@testing-library/react';
import { mockApis, renderTestApp } from '@backstage/frontend-test-utils';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { inferencePlatformApiRef } from './api';
import { clientOfFeed } from './__testUtils__/renderWithFeed';
import { FakeEventFeed } from './__testUtils__/fakeEventFeed';
import { samplePlatform } from './__testUtils__/samplePlatform';
import inferencePlatformPlugin from './alpha';

jest.setTimeout(30_000);

/** The plugin in an app of Backstage's new frontend system, nothing else installed. */
describe('the plugin in the new frontend system', () => {
  it('installs its API, its page with a nav item, and its entity card and content', () => {
    const plugin = inferencePlatformPlugin as any;
    for (const id of [
      'api:inference-platform',
      'page:inference-platform',
      'entity-card:inference-platform',
      'entity-content:inference-platform',
    ]) {
      expect({ id, found: Boolean(plugin.getExtension(id)) }).toEqual({
        id,
        found: true,
      });
    }
    expect(Object.keys(plugin.routes).sort()).toEqual(['platform', 'root']);
    expect(Object.keys(plugin.externalRoutes)).toEqual(['createPlatform']);
  });

  it('serves the live list at /inference-platforms inside the app frame, without a page frame of its own', async () => {
    const feed = new FakeEventFeed();
    renderTestApp({
      features: [inferencePlatformPlugin],
      initialRouteEntries: ['/inference-platforms'],
      apis: [
        [inferencePlatformApiRef, clientOfFeed(feed)],
        [
          permissionApiRef,
          mockApis.permission({ authorize: AuthorizeResult.ALLOW }),
        ],
      ] as any,
    });
    // The page is loaded lazily, then opens the feed.
    await waitFor(() => expect(feed.connections).toHaveLength(1), {
      timeout: 10_000,
    });
    act(() => feed.snapshot([samplePlatform('search', { phase: 'Ready' })]));
    expect(await screen.findByText('search')).toBeInTheDocument();
    expect(screen.getByText('Platforms')).toBeInTheDocument();
    // The page's title and nav item, from the plugin's PageBlueprint.
    expect(screen.getAllByText('Inference platforms').length).toBeGreaterThan(
      0,
    );
    // The legacy page's own header subtitle is not drawn: the app frames the page.
    expect(
      screen.queryByText('Inference platforms across your clusters'),
    ).not.toBeInTheDocument();
  });
});
