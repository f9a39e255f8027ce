import { mockCredentials, startTestBackend } from '@backstage/backend-test-utils';
import request from 'supertest';
import { inferencePlatformPlugin } from './plugin';

describe('inferencePlatformPlugin', () => {
  it('answers /health without credentials', async () => {
    const { server } = await startTestBackend({ features: [inferencePlatformPlugin] });
    const res = await request(server)
      .get('/api/inference-platform/health')
      .set('Authorization', mockCredentials.none.header());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it('answers /health for a signed-in user too', async () => {
    const { server } = await startTestBackend({ features: [inferencePlatformPlugin] });
    const res = await request(server)
      .get('/api/inference-platform/health')
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(200);
  });

  it('rejects other routes without credentials', async () => {
    const { server } = await startTestBackend({ features: [inferencePlatformPlugin] });
    const res = await request(server)
      .get('/api/inference-platform/anything-else')
      .set('Authorization', mockCredentials.none.header());
    expect(res.status).toBe(401);
  });
});
