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
    // Whether the operator runs, never why not (that may quote a configuration error).
    expect(Object.keys(res.body.operator).sort()).toEqual(
      res.body.operator.available === false ? ['available'] : ['leader', 'synced'],
    );
  });

  it('lists all its permissions for policy authors, the basic ones included', async () => {
    const { server } = await startTestBackend({ features: [inferencePlatformPlugin] });
    const res = await request(server)
      .get('/api/inference-platform/.well-known/backstage/permissions/metadata')
      .set('Authorization', mockCredentials.service.header());
    expect(res.status).toBe(200);
    expect(res.body.permissions.map((p: any) => p.name).sort()).toEqual([
      'inference-platform.backup.create',
      'inference-platform.create',
      'inference-platform.delete',
      'inference-platform.logs.read',
      'inference-platform.read',
      'inference-platform.restore.create',
      'inference-platform.update',
    ]);
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
