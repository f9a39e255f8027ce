import '@testing-library/jest-dom';
import {
  act,
  fireEvent,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import {
  BACKUP_REQUESTED_ANNOTATION,
  InferencePlatformV1beta1,
  InferencePlatformRestore,
} from '@cv-platform/plugin-inference-platform-common';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { InferencePlatformsPage } from '../InferencePlatformsPage';

jest.setTimeout(30_000);

function withBackups(
  name: string,
  resourceVersion?: string,
): InferencePlatformV1beta1 {
  const p = samplePlatform(name, { resourceVersion });
  p.spec.backup = {
    schedule: '0 3 * * *',
    s3: { bucket: 'cv-backups', prefix: 'qdrant' },
  };
  p.status!.backup = {
    lastSuccessfulTime: '2024-05-02T03:02:00Z',
    nextScheduleTime: '2099-05-04T03:00:00Z',
    running: {
      id: '20240503-120000',
      trigger: 'Manual',
      startTime: '2024-05-03T12:00:00Z',
    },
    history: [
      {
        id: '20240503-030000',
        trigger: 'Scheduled',
        startTime: '2024-05-03T03:00:00Z',
        completionTime: '2024-05-03T03:01:00Z',
        result: 'Failed',
        message: 'upload timed out',
      },
      {
        id: '20240502-030000',
        trigger: 'Manual',
        startTime: '2024-05-02T03:00:00Z',
        completionTime: '2024-05-02T03:02:00Z',
        result: 'Succeeded',
        sizeBytes: 1572864,
        collections: [
          { name: 'images', points: 1200, snapshots: [] },
          { name: 'faces', points: 30, snapshots: [] },
        ],
      },
    ],
  };
  return p;
}

function restore(
  name: string,
  status: InferencePlatformRestore['status'],
): InferencePlatformRestore {
  return {
    apiVersion: 'cv.platform.tech/v1alpha1',
    kind: 'InferencePlatformRestore',
    metadata: { name, namespace: 'team-a' },
    spec: { platformName: 'x', backupId: '20240502-030000' },
    status,
  };
}

/** Renders the detail page of team-a/<platform.name> and sends it on the feed. */
async function renderBackups(
  platform: InferencePlatformV1beta1,
  options: { deny?: string[]; restores?: InferencePlatformRestore[] } = {},
) {
  const name = platform.metadata.name!;
  const feed = new FakeEventFeed();
  feed.on(`GET /platforms/team-a/${name}`, () => ({
    status: 200,
    body: {
      platform,
      qdrant: { ready: 1, desired: 1 },
      inference: { ready: 1, desired: 1 },
      recentEvents: [],
      pods: [],
      events: [],
    },
  }));
  feed.on(`GET /platforms/team-a/${name}/restores`, () => ({
    status: 200,
    body: { items: options.restores ?? [] },
  }));
  await renderWithFeed(<InferencePlatformsPage />, {
    feed,
    deny: options.deny,
    path: '/inference-platforms/*',
    at: `/inference-platforms/team-a/${name}`,
  });
  await act(() => feed.waitForConnections(1));
  act(() => feed.snapshot([platform]));
  await screen.findByText('History');
  return feed;
}

// Own platform names per test: usePermission caches decisions per resourceRef.
describe('backups card', () => {
  it('shows the schedule, the last and next backups, the running one, the history and the restores', async () => {
    await renderBackups(withBackups('shown'), {
      restores: [
        restore('shown-restore-abcde', {
          phase: 'Failed',
          message: 'snapshot checksum mismatch',
          startTime: '2024-05-03T13:00:00Z',
          completionTime: '2024-05-03T13:01:00Z',
        }),
        restore('shown-restore-fghij', { phase: 'Succeeded' }),
      ],
    });
    expect(screen.getByText('0 3 * * * (UTC)')).toBeInTheDocument();
    expect(screen.getByText('s3://cv-backups/qdrant')).toBeInTheDocument();
    expect(screen.getByText(/^2024-05-02 03:02 UTC/)).toBeInTheDocument();
    expect(screen.getByText(/^2099-05-04 03:00 UTC \(in /)).toBeInTheDocument();
    expect(
      screen.getByText(/20240503-120000 \(Manual\), started/),
    ).toBeInTheDocument();

    const failed = within(screen.getByTestId('backup-20240503-030000'));
    expect(failed.getByText('Failed')).toBeInTheDocument();
    expect(failed.getByText('Scheduled')).toBeInTheDocument();
    expect(failed.getByText('upload timed out')).toBeInTheDocument();
    expect(
      failed.queryByRole('button', { name: /Restore/ }),
    ).not.toBeInTheDocument();
    const good = within(screen.getByTestId('backup-20240502-030000'));
    expect(good.getByText('Succeeded')).toBeInTheDocument();
    expect(good.getByText('1.5 MiB')).toBeInTheDocument();
    expect(
      good.getByText('images (1,200 points), faces (30 points)'),
    ).toBeInTheDocument();

    expect(await screen.findAllByTestId('restore-row')).toHaveLength(2);
    expect(screen.getByText('snapshot checksum mismatch')).toBeInTheDocument();
    expect(screen.getByText('shown-restore-fghij')).toBeInTheDocument();
    // A backup is running: another one cannot be asked for now.
    expect(screen.getByRole('button', { name: 'Back up now' })).toBeDisabled();
  });

  it('asks for a backup now and shows it waiting for the operator', async () => {
    const platform = withBackups('manual');
    delete platform.status!.backup!.running;
    const feed = await renderBackups(platform);
    feed.on('POST /platforms/team-a/manual/backups', () => ({
      status: 202,
      body: { requestedAt: '2024-05-03T14:00:00.000Z' },
    }));
    const button = screen.getByRole('button', { name: 'Back up now' });
    expect(button).toBeEnabled();
    fireEvent.click(button);
    expect(
      await screen.findByText(/waiting for the operator/),
    ).toBeInTheDocument();
    expect(
      feed.requests.filter(
        r =>
          r.method === 'POST' &&
          r.url.endsWith('/platforms/team-a/manual/backups'),
      ),
    ).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Back up now' })).toBeDisabled();

    // The operator took it up: the button comes back.
    const handled = withBackups('manual');
    delete handled.status!.backup!.running;
    handled.metadata.annotations = {
      [BACKUP_REQUESTED_ANNOTATION]: '2024-05-03T14:00:00.000Z',
    };
    handled.status!.backup!.lastRequestHandled = '2024-05-03T14:00:00.000Z';
    act(() => feed.change('MODIFIED', handled));
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Back up now' })).toBeEnabled(),
    );
  });

  it('restores a successful backup after confirmation, with the chosen collections', async () => {
    const feed = await renderBackups(withBackups('restoring'));
    let sent: unknown;
    feed.on('POST /platforms/team-a/restoring/restores', body => {
      sent = body;
      return {
        status: 201,
        body: restore('restoring-restore-k2x9q', undefined),
      };
    });
    fireEvent.click(
      screen.getByRole('button', { name: 'Restore backup 20240502-030000' }),
    );
    const dialog = within(screen.getByRole('dialog'));
    expect(
      dialog.getByText(/lose every write made since then/),
    ).toBeInTheDocument();
    const field = dialog.getByLabelText('Collections (optional)');
    fireEvent.change(field, { target: { value: 'images, cats' } });
    expect(dialog.getByText('Not in this backup: cats')).toBeInTheDocument();
    expect(dialog.getByRole('button', { name: 'Restore' })).toBeDisabled();
    fireEvent.change(field, { target: { value: 'images' } });
    // The list is fetched again once the restore exists.
    feed.on('GET /platforms/team-a/restoring/restores', () => ({
      status: 200,
      body: {
        items: [restore('restoring-restore-k2x9q', { phase: 'Pending' })],
      },
    }));
    fireEvent.click(dialog.getByRole('button', { name: 'Restore' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(sent).toEqual({
      backupId: '20240502-030000',
      collections: ['images'],
    });
    expect(
      await screen.findByText('restoring-restore-k2x9q'),
    ).toBeInTheDocument();
    expect(screen.getByText('Pending')).toBeInTheDocument();
  });

  it('shows the API server reason when a restore is refused', async () => {
    const feed = await renderBackups(withBackups('refused'));
    feed.on('POST /platforms/team-a/refused/restores', () => ({
      status: 400,
      body: {
        error: {
          name: 'InputError',
          message: 'team-a/refused has no backup x',
        },
        response: { statusCode: 400 },
      },
    }));
    fireEvent.click(
      screen.getByRole('button', { name: 'Restore backup 20240502-030000' }),
    );
    const dialog = within(screen.getByRole('dialog'));
    fireEvent.click(dialog.getByRole('button', { name: 'Restore' }));
    expect(
      await dialog.findByText('Rejected: team-a/refused has no backup x'),
    ).toBeInTheDocument();
  });

  it('offers neither back-up-now nor restore without their permissions', async () => {
    const platform = withBackups('no-backup-rights');
    delete platform.status!.backup!.running;
    await renderBackups(platform, {
      deny: [
        'inference-platform.backup.create',
        'inference-platform.restore.create',
      ],
    });
    expect(screen.getByTestId('backup-20240502-030000')).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Back up now' }),
    ).not.toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: /^Restore backup/ }),
    ).not.toBeInTheDocument();
    // Other actions are governed by their own permissions.
    expect(screen.getByRole('button', { name: 'Scale' })).toBeInTheDocument();
  });

  it('explains how to configure backups when the platform has none', async () => {
    const feed = new FakeEventFeed();
    await renderWithFeed(<InferencePlatformsPage />, {
      feed,
      path: '/inference-platforms/*',
      at: '/inference-platforms/team-a/unconfigured',
    });
    await act(() => feed.waitForConnections(1));
    act(() => feed.snapshot([samplePlatform('unconfigured')]));
    expect(await screen.findByTestId('backups-unconfigured')).toHaveTextContent(
      'Backups are not configured for this platform',
    );
    expect(screen.getByText(/my-qdrant-backups/)).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Back up now' }),
    ).not.toBeInTheDocument();
    expect(feed.requests.some(r => r.url.endsWith('/restores'))).toBe(false);
  });
});
