import '@testing-library/jest-dom';
import {
  act,
  fireEvent,
  screen,
  waitFor,
  within,
} from '@testing-library/react';
import { InferencePlatformV1beta1 } from '@cv-platform/plugin-inference-platform-common';
import { renderWithFeed } from '../../__testUtils__/renderWithFeed';
import { FakeEventFeed } from '../../__testUtils__/fakeEventFeed';
import { samplePlatform } from '../../__testUtils__/samplePlatform';
import { InferencePlatformsPage } from '../InferencePlatformsPage';

jest.setTimeout(30_000);

const V2 = 's3://models/resnet50-v2.onnx';

function withCanary(name: string): InferencePlatformV1beta1 {
  const p = samplePlatform(name, { modelUrl: 's3://models/resnet50.onnx' });
  p.spec.inference.canary = {
    model: { url: V2 },
    weight: 20,
    collection: 'images-v2',
  };
  p.status!.canary = {
    modelUrl: V2,
    collection: 'images-v2',
    weight: 20,
    replicas: 1,
    readyReplicas: 1,
    effectiveWeight: 20,
    state: 'Serving',
    message: '1/1 canary servers ready, 20% of requests (weight 20)',
    metrics: {
      stable: { requestsPerSecond: 12.5, errorRate: 0, p95LatencyMs: 41.2 },
      canary: { requestsPerSecond: 3.1, errorRate: 0.0123, p95LatencyMs: 55 },
      windowSeconds: 30,
      observedAt: '2024-05-03T12:00:00Z',
    },
  };
  return p;
}

async function renderDetail(
  platform: InferencePlatformV1beta1,
  options: { deny?: string[] } = {},
) {
  const name = platform.metadata.name!;
  const feed = new FakeEventFeed();
  feed.on(`GET /platforms/team-a/${name}`, () => ({
    status: 200,
    body: { platform, pods: [], events: [] },
  }));
  await renderWithFeed(<InferencePlatformsPage />, {
    feed,
    deny: options.deny,
    path: '/inference-platforms/*',
    at: `/inference-platforms/team-a/${name}`,
  });
  await act(() => feed.waitForConnections(1));
  act(() => feed.snapshot([platform]));
  await screen.findByText('Requests per version (last 30 s)');
  return feed;
}

describe('canary card', () => {
  it("shows the canary's share, state and both versions' request metrics", async () => {
    await renderDetail(withCanary('shown'));
    expect(
      screen.getByText('20% of requests (1/1 canary servers ready)'),
    ).toBeInTheDocument();
    expect(screen.getByText('images-v2')).toBeInTheDocument();
    expect(screen.getByText('Serving')).toBeInTheDocument();
    const stable = within(screen.getByTestId('canary-metrics-stable'));
    expect(stable.getByText('12.50')).toBeInTheDocument();
    expect(stable.getByText('0.0%')).toBeInTheDocument();
    expect(stable.getByText('41.2 ms')).toBeInTheDocument();
    const canary = within(screen.getByTestId('canary-metrics-canary'));
    expect(canary.getByText(V2)).toBeInTheDocument();
    expect(canary.getByText('1.2%')).toBeInTheDocument();
    expect(canary.getByText('55 ms')).toBeInTheDocument();
  });

  it('promotes in one edit: the canary model and collection become the stable ones', async () => {
    const feed = await renderDetail(withCanary('promoting'));
    let sent: unknown;
    feed.on('PATCH /platforms/team-a/promoting', body => {
      sent = body;
      return { status: 200, body: samplePlatform('promoting') };
    });
    fireEvent.click(screen.getByRole('button', { name: 'Promote' }));
    const dialog = within(screen.getByRole('dialog'));
    expect(
      dialog.getByText(
        /resnet50-v2\.onnx becomes the stable model and images-v2 its collection/,
      ),
    ).toBeInTheDocument();
    fireEvent.click(dialog.getByRole('button', { name: 'Promote' }));
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(sent).toEqual({
      inference: { model: { url: V2 }, collection: 'images-v2', canary: null },
    });
  });

  it('rolls back by removing the canary, and quotes a refusal', async () => {
    const feed = await renderDetail(withCanary('rollback'));
    let sent: unknown;
    feed.on('PATCH /platforms/team-a/rollback', body => {
      sent = body;
      return {
        status: 409,
        body: {
          error: {
            name: 'ConflictError',
            message: 'the object has been modified',
          },
          response: { statusCode: 409 },
        },
      };
    });
    fireEvent.click(screen.getByRole('button', { name: 'Roll back' }));
    const dialog = within(screen.getByRole('dialog'));
    fireEvent.click(dialog.getByRole('button', { name: 'Roll back' }));
    expect(
      await dialog.findByText(/the object has been modified/),
    ).toBeInTheDocument();
    expect(sent).toEqual({ inference: { canary: null } });
  });

  it('offers neither action without the update permission', async () => {
    await renderDetail(withCanary('read-only'), {
      deny: ['inference-platform.update'],
    });
    expect(
      screen.queryByRole('button', { name: 'Promote' }),
    ).not.toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Roll back' }),
    ).not.toBeInTheDocument();
  });
});
