import { configApiRef } from '@backstage/core-plugin-api';
import { ReactElement } from 'react';
import { Route, Routes } from 'react-router-dom';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/test-utils';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { inferencePlatformApiRef, InferencePlatformClient } from '../api';
import { createPlatformRouteRef, rootRouteRef } from '../routes';
import { FakeEventFeed } from './fakeEventFeed';

// Named explicitly: the inferred type reaches into a nested testing-library
// package, which declaration emit cannot name portably.
export type RenderWithFeedResult = Awaited<
  ReturnType<typeof renderInTestApp>
> & {
  feed: FakeEventFeed;
};

/**
 * Renders a plugin element in a test app whose inference-platform client
 * talks to a fresh FakeEventFeed through a mocked fetchApi and discoveryApi.
 * `path` mounts the element at a route pattern (for useParams) and
 * navigates to `at`.
 */
export async function renderWithFeed(
  element: ReactElement,
  options: {
    feed?: FakeEventFeed;
    /** Names of permissions to deny, e.g. 'inference-platform.delete'. */
    deny?: string[];
    path?: string;
    at?: string;
    /** App config (e.g. inferencePlatform.links). */
    config?: Record<string, unknown>;
  } = {},
): Promise<RenderWithFeedResult> {
  const feed = options.feed ?? new FakeEventFeed();
  const deny = new Set(options.deny ?? []);
  const permission = mockApis.permission({
    authorize: req =>
      deny.has(req.permission.name)
        ? AuthorizeResult.DENY
        : AuthorizeResult.ALLOW,
  });
  const client = clientOfFeed(feed);
  const wrapped = options.path ? (
    <Routes>
      <Route path={options.path} element={element} />
    </Routes>
  ) : (
    element
  );
  const result = await renderInTestApp(
    <TestApiProvider
      apis={[
        [inferencePlatformApiRef, client],
        [permissionApiRef, permission],
        [
          configApiRef,
          mockApis.config({ data: (options.config ?? {}) as any }),
        ],
      ]}
    >
      {wrapped}
    </TestApiProvider>,
    {
      routeEntries: [options.at ?? '/'],
      mountedRoutes: {
        '/inference-platforms': rootRouteRef,
        '/create': createPlatformRouteRef,
      },
    },
  );
  return { feed, ...result };
}

/** The real client against a fake backend at http://backend.test. */
export function clientOfFeed(feed: FakeEventFeed): InferencePlatformClient {
  return new InferencePlatformClient({
    discoveryApi: mockApis.discovery({ baseUrl: 'http://backend.test' }),
    fetchApi: feed.fetchApi,
    // Fast retries keep reconnect tests short; no silence watchdog in tests.
    stream: {
      backoff: { baseMs: 20, maxMs: 100, jitter: 0 },
      staleAfterMs: 600_000,
    },
  });
}
