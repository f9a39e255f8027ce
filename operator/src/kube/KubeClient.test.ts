import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, KubeClient } from './KubeClient';

/** An HTTP server answering each request with the next of `answers` (status, body). */
async function serverAnswering(answers: Array<[number, unknown]>) {
  const seen: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    authorizations.push(req.headers.authorization);
    const [status, body] = answers[Math.min(seen.length - 1, answers.length - 1)];
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(body));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // Plain HTTP is only allowed with skipTLSVerify.
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const client = new KubeClient(kc);
  return {
    client,
    seen,
    authorizations,
    close: async () => {
      client.close();
      server.closeAllConnections();
      await new Promise(resolve => server.close(resolve));
    },
  };
}

const tooMany = (retryAfterSeconds: number) => [
  429,
  { kind: 'Status', status: 'Failure', message: 'storage is (re)initializing', reason: 'TooManyRequests', details: { retryAfterSeconds }, code: 429 },
] as [number, unknown];

const unauthorized = [401, { kind: 'Status', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }] as [number, unknown];

describe('KubeClient', () => {
  it("sends the credentials provider's token instead of the kubeconfig user's, and mints a new one once after a 401", async () => {
    const s = await serverAnswering([[200, {}], unauthorized, [200, { kind: 'Pod' }], unauthorized, unauthorized]);
    try {
      const asked: Array<{ name: string; url: string }> = [];
      s.client.setCredentialsProvider({
        getCredentials: async cluster => {
          asked.push(cluster);
          return { token: `minted-${asked.length}` };
        },
      });
      await s.client.request('GET', '/api/v1/pods');
      // Expired before its refresh: a new token, the request again.
      expect(await s.client.request('GET', '/api/v1/pods')).toEqual({ kind: 'Pod' });
      expect(s.authorizations).toEqual(['Bearer minted-1', 'Bearer minted-1', 'Bearer minted-2']);
      expect(asked[0]).toEqual({ name: 'c', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
      // A token refused again is refused: one retry only.
      await expect(s.client.request('GET', '/api/v1/pods')).rejects.toMatchObject({ statusCode: 401 });
      expect(s.seen).toHaveLength(5);
      expect(asked).toHaveLength(3);
    } finally {
      await s.close();
    }
  });

  it('mints a new token for the request after a watch was refused with 401', async () => {
    const s = await serverAnswering([unauthorized, [200, {}]]);
    try {
      let minted = 0;
      s.client.setCredentialsProvider({ getCredentials: async () => ({ token: `minted-${++minted}` }) });
      await expect(s.client.watch('/api/v1/pods', {}, () => {}, new AbortController().signal)).rejects.toMatchObject({ statusCode: 401 });
      await s.client.request('GET', '/api/v1/pods');
      expect(s.authorizations).toEqual(['Bearer minted-1', 'Bearer minted-2']);
    } finally {
      await s.close();
    }
  });

  it('sends a request the API server answered 429 again after its Retry-After, as client-go does', async () => {
    const s = await serverAnswering([tooMany(0.1), tooMany(0.1), [200, { kind: 'Pod' }]]);
    try {
      expect(await s.client.request('PATCH', '/api/v1/namespaces/a/pods/p', {})).toEqual({ kind: 'Pod' });
      expect(s.seen).toEqual(Array(3).fill('PATCH /api/v1/namespaces/a/pods/p'));
      expect(s.client.requests).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('gives up after five retries, and never retries other errors', async () => {
    const s = await serverAnswering([tooMany(0.1)]);
    try {
      await expect(s.client.request('GET', '/api/v1/pods')).rejects.toMatchObject({ statusCode: 429 });
      expect(s.seen).toHaveLength(6);
    } finally {
      await s.close();
    }
    const t = await serverAnswering([[409, { kind: 'Status', message: 'conflict', code: 409 }]]);
    try {
      await expect(t.client.request('PUT', '/api/v1/pods')).rejects.toBeInstanceOf(KubeApiError);
      expect(t.seen).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
