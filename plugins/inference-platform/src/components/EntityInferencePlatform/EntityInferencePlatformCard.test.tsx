import '@testing-library/jest-dom';
import { act, screen } from '@testing-library/react';
import { Entity } from '@backstage/catalog-model';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { EntityInferencePlatformCard } from './EntityInferencePlatformCard';

const component = (annotation?: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'image-search',
    annotations: annotation
      ? { 'cv.platform.tech/inference-platform': annotation }
      : {},
  },
  spec: { type: 'service', lifecycle: 'production', owner: 'team-a' },
});

async function renderCard(entity: Entity, cards = 1) {
  const feed = new FakeEventFeed();
  await renderWithFeed(
    <EntityProvider entity={entity}>
      {Array.from({ length: cards }, (_, i) => (
        <EntityInferencePlatformCard key={i} />
      ))}
    </EntityProvider>,
    { feed },
  );
  return feed;
}

describe('EntityInferencePlatformCard', () => {
  it('follows the annotated platform live and links to its page', async () => {
    const feed = await renderCard(component('team-a/search'));
    await act(() => feed.waitForConnections(1));
    act(() =>
      feed.snapshot([
        samplePlatform('other', { phase: 'Failed' }),
        samplePlatform('search', { phase: 'Loading', inference: [0, 2] }),
      ]),
    );
    expect(await screen.findByText('Loading')).toBeInTheDocument();
    expect(screen.queryByText('Failed')).not.toBeInTheDocument();
    expect(screen.getByTestId('inference-readiness')).toHaveTextContent('0/2');
    expect(screen.getByRole('link', { name: /View platform/ })).toHaveAttribute(
      'href',
      '/inference-platforms/team-a/search',
    );
    act(() =>
      feed.change(
        'MODIFIED',
        samplePlatform('search', { phase: 'Ready', inference: [2, 2] }),
      ),
    );
    expect(await screen.findByText('Ready')).toBeInTheDocument();
    expect(screen.getByTestId('inference-readiness')).toHaveTextContent('2/2');
  });

  it('asks the backend for its platform only, one stream for every card that shows it', async () => {
    const feed = await renderCard(component('team-a/search'), 2);
    await act(() => feed.waitForConnections(1));
    act(() =>
      feed.snapshot([
        samplePlatform('search', { phase: 'Ready', inference: [2, 2] }),
      ]),
    );
    expect(await screen.findAllByText('Ready')).toHaveLength(2);
    expect(feed.connections.map(c => c.url)).toEqual([
      'http://backend.test/api/inference-platform/events?platform=team-a%2Fsearch',
    ]);
  });

  it('says what to fix when the annotated platform does not exist', async () => {
    const feed = await renderCard(component('team-a/missing'));
    await act(() => feed.waitForConnections(1));
    act(() => feed.snapshot([samplePlatform('search')]));
    expect(
      await screen.findByText('No platform team-a/missing'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/correct the annotation in catalog-info.yaml/),
    ).toBeInTheDocument();
  });

  it('explains a missing or malformed annotation without connecting', async () => {
    const feed = await renderCard(component('just-a-name'));
    expect(screen.getByText(/Missing Annotation/i)).toBeInTheDocument();
    expect(feed.connections).toHaveLength(0);
  });

  it('follows the platform on the cluster its annotation names', async () => {
    const feed = await renderCard(component('east/team-a/search'));
    await act(() => feed.waitForConnections(1));
    expect(feed.connections.map(c => c.url)).toEqual([
      'http://backend.test/api/inference-platform/events?cluster=east&platform=team-a%2Fsearch',
    ]);
    act(() =>
      feed.snapshot([
        samplePlatform('search', { phase: 'Degraded', inference: [1, 2] }),
      ]),
    );
    expect(await screen.findByText('Degraded')).toBeInTheDocument();
    expect(
      screen.getByText('team-a/search on cluster east'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /View platform/ })).toHaveAttribute(
      'href',
      '/inference-platforms/team-a/search?cluster=east',
    );
  });
});
