import '@testing-library/jest-dom';
import {
  act,
  fireEvent,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import { PlatformDetail } from '@cv-platform/plugin-inference-platform-common';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { InferencePlatformsPage } from '../InferencePlatformsPage';

function detailOf(
  platform = samplePlatform('search', { resourceVersion: '200' }),
): PlatformDetail {
  return {
    cluster: 'local',
    platform,
    qdrant: { ready: 1, desired: 1 },
    inference: { ready: 1, desired: 1 },
    recentEvents: [],
    pods: [
      {
        name: 'search-qdrant-0',
        component: 'qdrant',
        phase: 'Running',
        ready: true,
        nodeName: 'cpu-a',
        restarts: 0,
        initContainers: [],
        containers: ['qdrant'],
      },
      {
        name: 'search-inference-7d9-x2',
        component: 'inference',
        phase: 'Pending',
        ready: false,
        restarts: 2,
        reason: 'model-loader: CrashLoopBackOff',
        initContainers: ['model-loader'],
        containers: ['inference'],
      },
    ],
    workloads: [
      {
        kind: 'StatefulSet',
        name: 'search-qdrant',
        role: 'qdrant',
        desired: 3,
        replicas: 3,
        ready: 3,
        updated: 1,
        currentRevision: 'search-qdrant-6c9f',
        updateRevision: 'search-qdrant-7d4b',
        partition: 2,
        rolling: true,
        conditions: [],
      },
      {
        kind: 'Deployment',
        name: 'search-inference',
        role: 'inference',
        desired: 1,
        replicas: 2,
        ready: 1,
        updated: 1,
        available: 1,
        rolling: true,
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message:
              'ReplicaSet "search-inference-7d9" has timed out progressing.',
          },
        ],
      },
    ],
    volumes: [
      {
        name: 'storage-search-qdrant-0',
        phase: 'Bound',
        requested: '20Gi',
        capacity: '10Gi',
        storageClassName: 'gp2',
        accessModes: ['ReadWriteOnce'],
        conditions: [{ type: 'Resizing' }],
      },
    ],
    objects: [
      {
        apiVersion: 'cv.platform.tech/v1beta1',
        kind: 'InferencePlatform',
        name: 'search',
      },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'search-qdrant' },
    ],
    events: [
      {
        type: 'Warning',
        reason: 'BackOff',
        message: 'Back-off restarting failed container model-loader',
        count: 4,
        lastTimestamp: '2024-05-01T10:10:00Z',
        involvedObject: { kind: 'Pod', name: 'search-inference-7d9-x2' },
      },
    ],
  };
}

async function renderDetail(
  options: {
    deny?: string[];
    feed?: FakeEventFeed;
    name?: string;
    config?: Record<string, unknown>;
  } = {},
) {
  const name = options.name ?? 'search';
  const feed = options.feed ?? new FakeEventFeed();
  if (!options.feed) {
    feed.on(`GET /platforms/team-a/${name}`, () => ({
      status: 200,
      body: detailOf(samplePlatform(name, { resourceVersion: '200' })),
    }));
  }
  const result = await renderWithFeed(<InferencePlatformsPage />, {
    feed,
    deny: options.deny,
    config: options.config,
    path: '/inference-platforms/*',
    at: `/inference-platforms/team-a/${name}`,
  });
  await act(() => feed.waitForConnections(1));
  return result;
}

describe('platform detail page', () => {
  it('shows spec, status, conditions, Qdrant cluster, pods and events', async () => {
    const feed = new FakeEventFeed();
    feed.on('GET /platforms/team-a/search', () => ({
      status: 200,
      body: detailOf(),
    }));
    await renderDetail({ feed });
    const platform = samplePlatform('search', {
      resourceVersion: '201',
      phase: 'Degraded',
      inference: [0, 1],
    });
    platform.status!.qdrantCluster = {
      reachable: true,
      peerId: '111',
      raftLeader: '111',
      raftTerm: 3,
      pendingOperations: 0,
      peers: [
        {
          id: '111',
          uri: 'http://search-qdrant-0.search-qdrant-headless:6335',
        },
      ],
    };
    platform.status!.conditions!.push({
      type: 'ModelLoaded',
      status: 'False',
      reason: 'ModelDownloadFailed',
      message: 'GET https://models.example.com/... 404',
      lastTransitionTime: '2024-05-01T10:06:00Z',
    });
    act(() => feed.snapshot([samplePlatform('other'), platform]));

    expect(await screen.findByText('ModelDownloadFailed')).toBeInTheDocument();
    expect(
      within(screen.getByTestId('condition-ModelLoaded')).getByText('False'),
    ).toBeInTheDocument();
    expect(screen.getByText('Degraded')).toBeInTheDocument();
    expect(
      screen.getByText('https://models.example.com/search/resnet50.onnx'),
    ).toBeInTheDocument();
    expect(screen.getByText('111 (leader)')).toBeInTheDocument();
    expect(await screen.findByText('search-qdrant-0')).toBeInTheDocument();
    expect(screen.getAllByTestId('pod-tile')).toHaveLength(2);
    expect(
      screen.getByText('model-loader: CrashLoopBackOff'),
    ).toBeInTheDocument();
    expect(
      screen.getByText('Back-off restarting failed container model-loader'),
    ).toBeInTheDocument();
    expect(screen.getByTestId('connection-indicator')).toHaveAttribute(
      'data-state',
      'live',
    );
  });

  it('scales both tiers and shows the confirmed object before the feed echoes it', async () => {
    const { feed } = await renderDetail();
    act(() =>
      feed.snapshot([
        samplePlatform('search', {
          resourceVersion: '300',
          qdrant: [1, 1],
          inference: [1, 1],
        }),
      ]),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Scale' }));
    let patched: unknown;
    feed.on('PATCH /platforms/team-a/search', body => {
      patched = body;
      return {
        status: 200,
        body: samplePlatform('search', {
          resourceVersion: '301',
          qdrant: [1, 3],
          inference: [1, 4],
        }),
      };
    });
    const dialog = within(screen.getByRole('dialog'));
    fireEvent.change(dialog.getByLabelText('Qdrant replicas'), {
      target: { value: '3' },
    });
    fireEvent.change(dialog.getByLabelText('Inference replicas'), {
      target: { value: '4' },
    });
    fireEvent.click(dialog.getByRole('button', { name: 'Scale' }));

    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(patched).toEqual({
      qdrant: { replicas: 3 },
      inference: { replicas: 4 },
    });
    expect(screen.getAllByTestId('qdrant-readiness')[0]).toHaveTextContent(
      '1/3',
    );
    expect(screen.getAllByTestId('inference-readiness')[0]).toHaveTextContent(
      '1/4',
    );

    // A stale event still in flight from before the write must not undo it.
    act(() =>
      feed.change(
        'MODIFIED',
        samplePlatform('search', { resourceVersion: '300', qdrant: [1, 1] }),
      ),
    );
    act(() =>
      feed.change(
        'MODIFIED',
        samplePlatform('search', {
          resourceVersion: '305',
          qdrant: [3, 3],
          inference: [4, 4],
        }),
      ),
    );
    await waitFor(() =>
      expect(screen.getAllByTestId('qdrant-readiness')[0]).toHaveTextContent(
        '3/3',
      ),
    );
  });

  it('shows the API server message of a rejected change and leaves the values alone', async () => {
    const { feed } = await renderDetail();
    act(() =>
      feed.snapshot([samplePlatform('search', { resourceVersion: '400' })]),
    );
    feed.on('PATCH /platforms/team-a/search', () => ({
      status: 400,
      body: {
        error: {
          name: 'InputError',
          message:
            'spec.inference.model.url: Invalid value: "s3://nope": bucket not allowed',
        },
        response: { statusCode: 400 },
      },
    }));
    fireEvent.click(
      await screen.findByRole('button', { name: 'Change model / version' }),
    );
    const dialog = within(screen.getByRole('dialog'));
    fireEvent.change(dialog.getByLabelText('Model URL'), {
      target: { value: 's3://nope/model.onnx' },
    });
    fireEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(
      await dialog.findByText(
        /Rejected: spec.inference.model.url: Invalid value/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    fireEvent.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(
      screen.getByText('https://models.example.com/search/resnet50.onnx'),
    ).toBeInTheDocument();
  });

  it('validates the model URL and version before sending', async () => {
    const { feed } = await renderDetail();
    act(() => feed.snapshot([samplePlatform('search')]));
    fireEvent.click(
      await screen.findByRole('button', { name: 'Change model / version' }),
    );
    const dialog = within(screen.getByRole('dialog'));
    fireEvent.change(dialog.getByLabelText('Qdrant version'), {
      target: { value: 'latest' },
    });
    expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
    fireEvent.change(dialog.getByLabelText('Qdrant version'), {
      target: { value: 'v1.10.1' },
    });
    expect(dialog.getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('deletes only after the name is typed, and drops the platform when the feed says it is gone', async () => {
    const { feed } = await renderDetail();
    act(() =>
      feed.snapshot([samplePlatform('search', { resourceVersion: '500' })]),
    );
    feed.on('DELETE /platforms/team-a/search', () => ({ status: 204 }));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = within(screen.getByRole('dialog'));
    const confirm = dialog.getByRole('button', { name: 'Delete' });
    expect(confirm).toBeDisabled();
    fireEvent.change(dialog.getByLabelText('Platform name'), {
      target: { value: 'searc' },
    });
    expect(confirm).toBeDisabled();
    fireEvent.change(dialog.getByLabelText('Platform name'), {
      target: { value: 'search' },
    });
    fireEvent.click(confirm);
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(feed.requests.filter(r => r.method === 'DELETE')).toHaveLength(1);
    // Accepted is not gone: the page still shows the platform.
    expect(screen.getByText('Spec')).toBeInTheDocument();

    const deleting = samplePlatform('search', { resourceVersion: '501' });
    deleting.metadata.deletionTimestamp = '2024-05-01T11:00:00Z';
    act(() => feed.change('MODIFIED', deleting));
    expect(await screen.findByText('Deleting')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Scale' })).toBeDisabled();

    feed.on('GET /platforms/team-a/search', () => ({
      status: 404,
      body: {
        error: { name: 'NotFoundError', message: 'gone' },
        response: { statusCode: 404 },
      },
    }));
    act(() => feed.change('DELETED', deleting));
    expect(
      await screen.findByText('No platform team-a/search'),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('link', { name: 'Back to all platforms' }),
    ).toHaveAttribute('href', '/inference-platforms');
  });

  // Own platform names: usePermission caches decisions per resourceRef across renders.
  it('shows rollout state, volumes, YAML of each object and the configured links', async () => {
    const feed = new FakeEventFeed();
    feed.on('GET /platforms/team-a/search', () => ({
      status: 200,
      body: detailOf(),
    }));
    feed.on(
      'GET /platforms/team-a/search/objects/InferencePlatform/search',
      () => ({
        status: 200,
        body: {
          apiVersion: 'cv.platform.tech/v1beta1',
          kind: 'InferencePlatform',
          metadata: { name: 'search' },
          spec: { qdrant: { replicas: 3 } },
        },
      }),
    );
    feed.on(
      'GET /platforms/team-a/search/objects/StatefulSet/search-qdrant',
      () => ({
        status: 200,
        body: {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'search-qdrant' },
          spec: { replicas: 3, serviceName: 'search-qdrant-headless' },
        },
      }),
    );
    await renderDetail({
      feed,
      config: {
        inferencePlatform: {
          links: [
            {
              title: 'Grafana',
              url: 'https://grafana.example.com/d/cv?var-cluster={cluster}&var-ns={namespace}&var-platform={name}',
            },
          ],
        },
      },
    });
    const sts = within(await screen.findByTestId('rollout-search-qdrant'));
    expect(
      sts.getByText('search-qdrant-6c9f → search-qdrant-7d4b (partition 2)'),
    ).toBeInTheDocument();
    expect(sts.getByText('Rolling out')).toBeInTheDocument();
    const deploy = within(screen.getByTestId('rollout-search-inference'));
    expect(
      deploy.getByText(
        /Stalled: ReplicaSet "search-inference-7d9" has timed out progressing/,
      ),
    ).toBeInTheDocument();
    const volume = within(screen.getByTestId('volume-storage-search-qdrant-0'));
    expect(volume.getByText('10Gi (asked 20Gi)')).toBeInTheDocument();
    expect(volume.getByText('Resizing')).toBeInTheDocument();
    expect(volume.getByText('gp2')).toBeInTheDocument();

    expect(screen.getByTestId('yaml-text')).toHaveTextContent(
      'kind: InferencePlatform',
    );
    fireEvent.mouseDown(screen.getByLabelText('Object'));
    fireEvent.click(
      await screen.findByRole('option', { name: 'StatefulSet search-qdrant' }),
    );
    await waitFor(() =>
      expect(screen.getByTestId('yaml-text')).toHaveTextContent(
        'serviceName: search-qdrant-headless',
      ),
    );

    const link = screen.getByRole('link', { name: /^Grafana/ });
    expect(link).toHaveAttribute(
      'href',
      'https://grafana.example.com/d/cv?var-cluster=local&var-ns=team-a&var-platform=search',
    );
  });

  it("shows a pod's logs per container, the failed init container's first, and the previous run", async () => {
    const feed = new FakeEventFeed();
    feed.on('GET /platforms/team-a/search', () => ({
      status: 200,
      body: detailOf(),
    }));
    const logs = '/platforms/team-a/search/pods/search-inference-7d9-x2/log';
    feed.on(`GET ${logs}?container=model-loader&tailLines=500`, () => ({
      status: 200,
      body: '2024-05-01T10:00:00Z model download failed after 4 attempts: NoSuchKey\n',
    }));
    feed.on(`GET ${logs}?container=inference&tailLines=500`, () => ({
      status: 200,
      body: 'serving on :8080\n',
    }));
    feed.on(
      `GET ${logs}?container=inference&tailLines=500&previous=true`,
      () => ({
        status: 400,
        body: {
          error: {
            name: 'InputError',
            message:
              'previous terminated container "inference" in pod "search-inference-7d9-x2" not found',
          },
          response: { statusCode: 400 },
        },
      }),
    );
    await renderDetail({ feed });
    fireEvent.click(
      await screen.findByRole('button', {
        name: 'Logs of search-inference-7d9-x2',
      }),
    );
    const dialog = within(screen.getByRole('dialog'));
    expect(
      await dialog.findByText(
        /model download failed after 4 attempts: NoSuchKey/,
      ),
    ).toBeInTheDocument();
    fireEvent.mouseDown(dialog.getByLabelText('Container'));
    fireEvent.click(await screen.findByRole('option', { name: 'inference' }));
    expect(await dialog.findByText(/serving on :8080/)).toBeInTheDocument();
    fireEvent.click(dialog.getByLabelText('Previous run'));
    expect(
      await dialog.findByText(
        /previous terminated container "inference" in pod .* not found/,
      ),
    ).toBeInTheDocument();
  });

  it('offers no logs without their permission', async () => {
    await renderDetail({
      deny: ['inference-platform.logs.read'],
      name: 'no-logs',
    });
    expect(await screen.findByText('search-qdrant-0')).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: /^Logs of/ }),
    ).not.toBeInTheDocument();
  });

  it('offers only the actions the permissions allow', async () => {
    const { feed } = await renderDetail({
      deny: ['inference-platform.delete'],
      name: 'no-delete',
    });
    act(() => feed.snapshot([samplePlatform('no-delete')]));
    expect(
      await screen.findByRole('button', { name: 'Scale' }),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Delete' }),
    ).not.toBeInTheDocument();
  });

  it('says so when the user may not change anything', async () => {
    const { feed } = await renderDetail({
      deny: ['inference-platform.delete', 'inference-platform.update'],
      name: 'read-only',
    });
    act(() => feed.snapshot([samplePlatform('read-only')]));
    expect(await screen.findByTestId('read-only-note')).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Scale' }),
    ).not.toBeInTheDocument();
  });

  it('explains a platform that does not exist', async () => {
    const feed = new FakeEventFeed();
    feed.on('GET /platforms/team-a/search', () => ({
      status: 404,
      body: {
        error: { name: 'NotFoundError', message: 'not found' },
        response: { statusCode: 404 },
      },
    }));
    await renderDetail({ feed });
    act(() => feed.snapshot([samplePlatform('other')]));
    expect(
      await screen.findByText('No platform team-a/search'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/may have been deleted, or the link has a typo/),
    ).toBeInTheDocument();
  });

  it('addresses the cluster the URL names in every call and its live stream', async () => {
    const feed = new FakeEventFeed();
    const q = '?cluster=east';
    let detailFetches = 0;
    feed.on(`GET /platforms/team-a/search${q}`, () => {
      detailFetches++;
      return { status: 200, body: { ...detailOf(), cluster: 'east' } };
    });
    // The same platform on the default cluster must not be what is shown.
    feed.on('GET /platforms/team-a/search', () => ({
      status: 500,
      body: { error: { name: 'Error', message: 'wrong cluster' } },
    }));
    feed.on(
      `GET /platforms/team-a/search/objects/InferencePlatform/search${q}`,
      () => ({
        status: 200,
        body: { kind: 'InferencePlatform', metadata: { name: 'east-copy' } },
      }),
    );
    feed.on(
      'GET /platforms/team-a/search/pods/search-inference-7d9-x2/log?cluster=east&container=model-loader&tailLines=500',
      () => ({ status: 200, body: 'east loader log\n' }),
    );
    let patched: unknown;
    feed.on(`PATCH /platforms/team-a/search${q}`, body => {
      patched = body;
      return {
        status: 200,
        body: samplePlatform('search', {
          resourceVersion: '401',
          qdrant: [1, 2],
        }),
      };
    });
    await renderWithFeed(<InferencePlatformsPage />, {
      feed,
      path: '/inference-platforms/*',
      at: `/inference-platforms/team-a/search${q}`,
    });
    await act(() => feed.waitForConnections(1));
    expect(feed.connections.map(c => c.url)).toEqual([
      'http://backend.test/api/inference-platform/events?cluster=east&platform=team-a%2Fsearch',
    ]);
    expect(
      screen.getAllByText(
        /Inference platform in namespace team-a on cluster east/,
      ).length,
    ).toBeGreaterThan(0);
    act(() =>
      feed.snapshot([samplePlatform('search', { resourceVersion: '400' })]),
    );
    expect(await screen.findByText('search-qdrant-0')).toBeInTheDocument();
    expect(detailFetches).toBeGreaterThan(0);
    await waitFor(() =>
      expect(screen.getByTestId('yaml-text')).toHaveTextContent(
        'name: east-copy',
      ),
    );

    fireEvent.click(
      screen.getByRole('button', { name: 'Logs of search-inference-7d9-x2' }),
    );
    expect(
      await within(screen.getByRole('dialog')).findByText(/east loader log/),
    ).toBeInTheDocument();
    fireEvent.click(
      within(screen.getByRole('dialog')).getByRole('button', {
        name: /close/i,
      }),
    );
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );

    fireEvent.click(screen.getByRole('button', { name: 'Scale' }));
    const dialog = within(screen.getByRole('dialog'));
    fireEvent.change(dialog.getByLabelText('Qdrant replicas'), {
      target: { value: '2' },
    });
    fireEvent.click(dialog.getByRole('button', { name: 'Scale' }));
    await waitFor(() => expect(patched).toEqual({ qdrant: { replicas: 2 } }));
    // The confirmed object lands on the east platform shown here.
    await waitFor(() =>
      expect(screen.getAllByTestId('qdrant-readiness')[0]).toHaveTextContent(
        '1/2',
      ),
    );
    expect(
      feed.requests.filter(
        r => !r.url.includes('/events') && !r.url.includes('cluster=east'),
      ),
    ).toEqual([]);
  });
});
