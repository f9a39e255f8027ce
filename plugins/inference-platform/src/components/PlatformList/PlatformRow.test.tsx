import '@testing-library/jest-dom';
import { act, waitFor, within } from '@testing-library/react';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { PlatformListPage } from './PlatformListPage';

type Counts = Record<string, number>;
const counts = () =>
  (globalThis as { __CV_RENDER_COUNTS__?: Counts }).__CV_RENDER_COUNTS__!;
const row = (key: string) =>
  document.querySelector(
    `[data-testid="platform-row"][data-key="${key}"]`,
  ) as HTMLElement;

describe('PlatformRow re-renders', () => {
  beforeEach(() => {
    (globalThis as { __CV_RENDER_COUNTS__?: Counts }).__CV_RENDER_COUNTS__ = {};
  });
  afterEach(() => {
    delete (globalThis as { __CV_RENDER_COUNTS__?: Counts })
      .__CV_RENDER_COUNTS__;
  });

  it('renders only the row of the platform an event is about', async () => {
    const feed = new FakeEventFeed();
    await renderWithFeed(<PlatformListPage />, { feed });
    await act(() => feed.waitForConnections(1));
    act(() =>
      feed.snapshot([
        samplePlatform('a', { inference: [0, 5] }),
        samplePlatform('b', { inference: [0, 5] }),
        samplePlatform('c', { inference: [0, 5] }),
      ]),
    );
    await waitFor(() => expect(row('team-a/c')).toBeTruthy());
    const before = { ...counts() };
    expect(before['PlatformRow:team-a/b']).toBeGreaterThan(0);

    for (let ready = 1; ready <= 5; ready++) {
      act(() =>
        feed.change('MODIFIED', samplePlatform('a', { inference: [ready, 5] })),
      );
    }
    await waitFor(() =>
      expect(
        within(row('team-a/a')).getByTestId('inference-readiness'),
      ).toHaveTextContent('5/5'),
    );
    const after = counts();
    expect(after['PlatformRow:team-a/a']).toBeGreaterThan(
      before['PlatformRow:team-a/a'],
    );
    expect(after['PlatformRow:team-a/b']).toBe(before['PlatformRow:team-a/b']);
    expect(after['PlatformRow:team-a/c']).toBe(before['PlatformRow:team-a/c']);
    // Nor does the table itself render: the visible order did not change.
    expect(after.PlatformTable).toBe(before.PlatformTable);

    // The counter does see B when B changes, so the assertions above can fail.
    act(() =>
      feed.change('MODIFIED', samplePlatform('b', { inference: [2, 5] })),
    );
    await waitFor(() =>
      expect(counts()['PlatformRow:team-a/b']).toBeGreaterThan(
        before['PlatformRow:team-a/b'],
      ),
    );
  });
});
