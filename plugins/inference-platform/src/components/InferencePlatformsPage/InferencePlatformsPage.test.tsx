import '@testing-library/jest-dom';
import { act, fireEvent, screen } from '@testing-library/react';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { InferencePlatformsPage } from './InferencePlatformsPage';

describe('InferencePlatformsPage', () => {
  it('shows the list at its mount point and a platform page below it', async () => {
    const feed = new FakeEventFeed();
    feed.on('GET /platforms/team-a/search', () => ({
      status: 200,
      body: {
        platform: samplePlatform('search'),
        qdrant: { ready: 1, desired: 1 },
        inference: { ready: 1, desired: 1 },
        recentEvents: [],
        pods: [],
        events: [],
      },
    }));
    await renderWithFeed(<InferencePlatformsPage />, {
      feed,
      path: '/inference-platforms/*',
      at: '/inference-platforms',
    });
    expect(screen.getByText('Inference platforms')).toBeInTheDocument();
    await act(() => feed.waitForConnections(1));
    act(() => feed.snapshot([samplePlatform('search')]));
    fireEvent.click(await screen.findByRole('link', { name: 'search' }));

    expect(
      await screen.findByText('Inference platform in namespace team-a'),
    ).toBeInTheDocument();
    // The detail page has a store and a feed connection of its own.
    await act(() => feed.waitForConnections(2));
    act(() => feed.snapshot([samplePlatform('search', { phase: 'Degraded' })]));
    expect(await screen.findByText('Degraded')).toBeInTheDocument();
    expect(feed.connections[0].closed).toBe(true);
  });
});
