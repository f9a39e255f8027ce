import '@testing-library/jest-dom';
import {
  act,
  fireEvent,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { PlatformListPage } from './PlatformListPage';

const row = (key: string) =>
  document.querySelector(
    `[data-testid="platform-row"][data-key="${key}"]`,
  ) as HTMLElement;
const rowKeys = () =>
  Array.from(document.querySelectorAll('[data-testid="platform-row"]')).map(r =>
    r.getAttribute('data-key'),
  );

async function renderList() {
  const feed = new FakeEventFeed();
  const result = await renderWithFeed(<PlatformListPage />, { feed });
  await act(() => feed.waitForConnections(1));
  return result;
}

describe('PlatformListPage', () => {
  it('says it is loading until the snapshot arrives, then shows every column', async () => {
    const { feed } = await renderList();
    expect(screen.getByText('Loading platforms…')).toBeInTheDocument();
    act(() =>
      feed.snapshot([
        samplePlatform('search', {
          phase: 'Loading',
          qdrant: [2, 3],
          inference: [0, 2],
        }),
        samplePlatform('ocr', {
          namespace: 'team-b',
          modelUrl: 's3://models/ocr/v2/model.onnx',
        }),
      ]),
    );
    await waitFor(() =>
      expect(rowKeys()).toEqual(['team-b/ocr', 'team-a/search']),
    );
    const search = within(row('team-a/search'));
    expect(search.getByText('Loading')).toBeInTheDocument();
    expect(search.getByTestId('qdrant-readiness')).toHaveTextContent('2/3');
    expect(search.getByTestId('inference-readiness')).toHaveTextContent('0/2');
    expect(search.getByText('resnet50.onnx')).toBeInTheDocument();
    expect(search.getByRole('link', { name: 'search' })).toHaveAttribute(
      'href',
      '/inference-platforms/team-a/search',
    );
    expect(within(row('team-b/ocr')).getByText('team-b')).toBeInTheDocument();
    expect(screen.getByTestId('connection-indicator')).toHaveAttribute(
      'data-state',
      'live',
    );
  });

  it('updates a row in place when the feed reports a change', async () => {
    const { feed } = await renderList();
    act(() =>
      feed.snapshot([
        samplePlatform('search', { phase: 'Loading', inference: [0, 2] }),
      ]),
    );
    await waitFor(() => expect(row('team-a/search')).toBeTruthy());
    const before = row('team-a/search');
    act(() =>
      feed.change(
        'MODIFIED',
        samplePlatform('search', { phase: 'Ready', inference: [2, 2] }),
      ),
    );
    await waitFor(() =>
      expect(
        within(row('team-a/search')).getByTestId('inference-readiness'),
      ).toHaveTextContent('2/2'),
    );
    expect(within(row('team-a/search')).getByText('Ready')).toBeInTheDocument();
    // Same DOM node: updated, not remounted.
    expect(row('team-a/search')).toBe(before);
    act(() => feed.change('ADDED', samplePlatform('new-one')));
    await waitFor(() =>
      expect(rowKeys()).toEqual(['team-a/new-one', 'team-a/search']),
    );
    act(() => feed.change('DELETED', samplePlatform('search')));
    await waitFor(() => expect(rowKeys()).toEqual(['team-a/new-one']));
  });

  it('shows an empty state that says how to create a platform', async () => {
    const { feed } = await renderList();
    act(() => feed.snapshot([]));
    expect(
      await screen.findByText('No inference platforms yet'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /software templates, or apply an InferencePlatformV1beta1/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Create a platform' }),
    ).toHaveAttribute('href', '/create');
  });

  it('explains a permission error instead of spinning', async () => {
    const feed = new FakeEventFeed();
    feed.nextEventReplies.push({
      status: 403,
      body: { error: { name: 'NotAllowedError', message: 'Unauthorized' } },
    });
    await renderWithFeed(<PlatformListPage />, { feed });
    expect(
      await screen.findByText(/Cannot load inference platforms/),
    ).toBeInTheDocument();
    expect(screen.getByTestId('connection-indicator')).toHaveAttribute(
      'data-state',
      'offline',
    );
    expect(feed.connections).toHaveLength(1);
  });

  it('shows reconnecting, keeps the rows, and resumes with Last-Event-ID', async () => {
    const { feed } = await renderList();
    act(() => feed.snapshot([samplePlatform('search')]));
    await waitFor(() => expect(row('team-a/search')).toBeTruthy());
    act(() => feed.latest.close());
    await waitFor(() =>
      expect(screen.getByTestId('connection-indicator')).toHaveAttribute(
        'data-state',
        'reconnecting',
      ),
    );
    expect(row('team-a/search')).toBeTruthy();
    await act(() => feed.waitForConnections(2));
    expect(feed.connections[1].lastEventId).toBe('1');
    await waitFor(() =>
      expect(screen.getByTestId('connection-indicator')).toHaveAttribute(
        'data-state',
        'live',
      ),
    );
  });

  it('filters by text and phase and sorts by column', async () => {
    const { feed } = await renderList();
    act(() =>
      feed.snapshot([
        samplePlatform('alpha', { phase: 'Ready', inference: [3, 3] }),
        samplePlatform('beta', {
          phase: 'Failed',
          inference: [0, 3],
          modelUrl: 's3://m/yolo.onnx',
        }),
        samplePlatform('gamma', { phase: 'Degraded', inference: [1, 3] }),
      ]),
    );
    await waitFor(() => expect(rowKeys()).toHaveLength(3));

    fireEvent.change(screen.getByLabelText('Filter platforms'), {
      target: { value: 'yolo' },
    });
    await waitFor(() => expect(rowKeys()).toEqual(['team-a/beta']));
    fireEvent.change(screen.getByLabelText('Filter platforms'), {
      target: { value: '' },
    });

    fireEvent.click(screen.getByRole('button', { name: 'Degraded' }));
    await waitFor(() => expect(rowKeys()).toEqual(['team-a/gamma']));
    fireEvent.click(screen.getByRole('button', { name: 'Ready' }));
    await waitFor(() =>
      expect(rowKeys()).toEqual(['team-a/alpha', 'team-a/gamma']),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Ready' }));
    fireEvent.click(screen.getByRole('button', { name: 'Degraded' }));
    await waitFor(() => expect(rowKeys()).toHaveLength(3));

    fireEvent.click(screen.getByText('Inference ready'));
    await waitFor(() =>
      expect(rowKeys()).toEqual([
        'team-a/beta',
        'team-a/gamma',
        'team-a/alpha',
      ]),
    );
    fireEvent.click(screen.getByText('Inference ready'));
    await waitFor(() =>
      expect(rowKeys()).toEqual([
        'team-a/alpha',
        'team-a/gamma',
        'team-a/beta',
      ]),
    );

    // A live change moves the row when the sort column is affected.
    act(() =>
      feed.change(
        'MODIFIED',
        samplePlatform('beta', { phase: 'Ready', inference: [3, 3] }),
      ),
    );
    await waitFor(() =>
      expect(rowKeys()).toEqual([
        'team-a/alpha',
        'team-a/beta',
        'team-a/gamma',
      ]),
    );

    fireEvent.change(screen.getByLabelText('Filter platforms'), {
      target: { value: 'nothing-like-this' },
    });
    expect(
      await screen.findByText('No platform matches the filter.'),
    ).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(rowKeys()).toHaveLength(3));
  });

  it('renders only the rows in view when all of many platforms are shown', async () => {
    const { feed } = await renderList();
    const many = Array.from({ length: 250 }, (_, i) =>
      samplePlatform(`p-${String(i).padStart(3, '0')}`),
    );
    act(() => feed.snapshot(many));
    await waitFor(() => expect(rowKeys()).toHaveLength(50));

    fireEvent.mouseDown(screen.getByRole('button', { name: /Rows per page/ }));
    fireEvent.click(await screen.findByRole('option', { name: 'All' }));
    // Unmeasured (jsdom): 30 rows assumed visible, plus 10 below.
    await waitFor(() => expect(rowKeys()).toHaveLength(40));
    expect(rowKeys()[0]).toBe('team-a/p-000');

    const scroller = screen.getByTestId('platform-table-scroller');
    scroller.scrollTop = 100 * 48;
    fireEvent.scroll(scroller);
    await waitFor(() => expect(rowKeys()[0]).toBe('team-a/p-090'));
    expect(rowKeys()).toHaveLength(50);
    expect(rowKeys()[49]).toBe('team-a/p-139');

    // The window is live: a change to a row in it shows up.
    act(() =>
      feed.change('MODIFIED', samplePlatform('p-120', { inference: [0, 7] })),
    );
    await waitFor(() =>
      expect(
        within(row('team-a/p-120')).getByTestId('inference-readiness'),
      ).toHaveTextContent('0/7'),
    );
  });

  describe('with several clusters', () => {
    async function renderClusters(
      clusters: { name: string; default: boolean; available: boolean }[],
      streams: number,
    ) {
      const feed = new FakeEventFeed();
      feed.on('GET /clusters', () => ({
        status: 200,
        body: { items: clusters },
      }));
      const result = await renderWithFeed(<PlatformListPage />, { feed });
      await act(() => feed.waitForConnections(streams));
      return result;
    }
    const columnHeaders = () =>
      screen.getAllByRole('columnheader').map(h => h.textContent);

    it('follows every available cluster and shows the same namespace/name on two clusters as two rows', async () => {
      const { feed } = await renderClusters(
        [
          { name: 'east', default: true, available: true },
          { name: 'west', default: false, available: true },
          { name: 'south', default: false, available: false },
        ],
        2,
      );
      expect(feed.connections.map(c => c.url).sort()).toEqual([
        'http://backend.test/api/inference-platform/events?cluster=east',
        'http://backend.test/api/inference-platform/events?cluster=west',
      ]);
      act(() =>
        feed.snapshot(
          [samplePlatform('search', { phase: 'Ready' })],
          feed.connectionOf('east'),
        ),
      );
      act(() =>
        feed.snapshot(
          [
            samplePlatform('search', { phase: 'Failed' }),
            samplePlatform('ocr', { namespace: 'team-b' }),
          ],
          feed.connectionOf('west'),
        ),
      );
      await waitFor(() =>
        expect(rowKeys()).toEqual([
          'west/team-b/ocr',
          'east/team-a/search',
          'west/team-a/search',
        ]),
      );
      expect(columnHeaders()).toEqual([
        'Cluster',
        'Name',
        'Namespace',
        'Phase',
        'Qdrant ready',
        'Inference ready',
        'Model',
        'Age',
      ]);
      const east = within(row('east/team-a/search'));
      const west = within(row('west/team-a/search'));
      expect(east.getByText('east')).toBeInTheDocument();
      expect(east.getByText('Ready')).toBeInTheDocument();
      expect(west.getByText('west')).toBeInTheDocument();
      expect(west.getByText('Failed')).toBeInTheDocument();
      expect(east.getByRole('link', { name: 'search' })).toHaveAttribute(
        'href',
        '/inference-platforms/team-a/search?cluster=east',
      );
      expect(west.getByRole('link', { name: 'search' })).toHaveAttribute(
        'href',
        '/inference-platforms/team-a/search?cluster=west',
      );
      expect(screen.getByText(/Not showing cluster south/)).toBeInTheDocument();

      // A change on one cluster's stream touches that cluster's row only.
      act(() =>
        feed.change(
          'MODIFIED',
          samplePlatform('search', { phase: 'Degraded' }),
          feed.connectionOf('west'),
        ),
      );
      await waitFor(() =>
        expect(
          within(row('west/team-a/search')).getByText('Degraded'),
        ).toBeInTheDocument(),
      );
      expect(
        within(row('east/team-a/search')).getByText('Ready'),
      ).toBeInTheDocument();

      // The cluster filter.
      const filter = within(screen.getByTestId('cluster-filter'));
      fireEvent.click(filter.getByRole('button', { name: 'west' }));
      await waitFor(() =>
        expect(rowKeys()).toEqual(['west/team-b/ocr', 'west/team-a/search']),
      );
      fireEvent.click(filter.getByRole('button', { name: 'west' }));
      fireEvent.click(filter.getByRole('button', { name: 'east' }));
      await waitFor(() => expect(rowKeys()).toEqual(['east/team-a/search']));
      fireEvent.click(filter.getByRole('button', { name: 'east' }));
      await waitFor(() => expect(rowKeys()).toHaveLength(3));

      fireEvent.click(screen.getByText('Cluster'));
      await waitFor(() =>
        expect(rowKeys()).toEqual([
          'east/team-a/search',
          'west/team-a/search',
          'west/team-b/ocr',
        ]),
      );
    });

    it('shows no cluster column or filter and names no cluster when the backend has one', async () => {
      const { feed } = await renderClusters(
        [{ name: 'local', default: true, available: true }],
        1,
      );
      expect(feed.connections.map(c => c.url)).toEqual([
        'http://backend.test/api/inference-platform/events',
      ]);
      act(() => feed.snapshot([samplePlatform('search')]));
      await waitFor(() => expect(rowKeys()).toEqual(['team-a/search']));
      expect(columnHeaders()).not.toContain('Cluster');
      expect(columnHeaders()[0]).toBe('Name');
      expect(screen.queryByTestId('cluster-filter')).not.toBeInTheDocument();
      expect(
        within(row('team-a/search')).getByRole('link', { name: 'search' }),
      ).toHaveAttribute('href', '/inference-platforms/team-a/search');
    });
  });
});
