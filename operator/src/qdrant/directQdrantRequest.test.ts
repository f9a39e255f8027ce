import http from 'node:http';
import { AddressInfo } from 'node:net';
import { directQdrantRequest } from './QdrantPeerClient';

describe('directQdrantRequest', () => {
  let server: http.Server;
  let base: string;
  const held: http.ServerResponse[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', c => (body += c));
      req.on('end', () => {
        if (req.url === '/cluster') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { status: 'enabled' }, status: 'ok' }));
        } else if (req.url === '/healthz') {
          res.writeHead(200).end('healthz check passed');
        } else if (req.url === '/echo') {
          res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, type: req.headers['content-type'], key: req.headers['api-key'], body: JSON.parse(body) }));
        } else {
          held.push(res);
        }
      });
    });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    held.forEach(r => r.destroy());
    server.closeAllConnections();
    await new Promise(r => server.close(r));
  });

  it('answers status and parsed JSON, or the text of a plain answer', async () => {
    await expect(directQdrantRequest({ method: 'GET', url: `${base}/cluster`, headers: {}, timeoutMs: 5000 })).resolves.toEqual({
      status: 200,
      body: { result: { status: 'enabled' }, status: 'ok' },
    });
    await expect(directQdrantRequest({ method: 'GET', url: `${base}/healthz`, headers: {}, timeoutMs: 5000 })).resolves.toEqual({
      status: 200,
      body: 'healthz check passed',
    });
  });

  it('sends a JSON body with its headers', async () => {
    const res = await directQdrantRequest({ method: 'POST', url: `${base}/echo`, body: { move_shard: { shard_id: 1 } }, headers: { 'api-key': 's3cret' }, timeoutMs: 5000 });
    expect(res).toEqual({ status: 202, body: { method: 'POST', type: 'application/json', key: 's3cret', body: { move_shard: { shard_id: 1 } } } });
  });

  it('rejects with the transport error as its cause: refused, or no answer in time', async () => {
    const closed = http.createServer();
    await new Promise<void>(r => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise(r => closed.close(r));
    await expect(directQdrantRequest({ method: 'GET', url: `http://127.0.0.1:${port}/cluster`, headers: {}, timeoutMs: 5000 })).rejects.toMatchObject({
      cause: { code: 'ECONNREFUSED' },
    });
    await expect(directQdrantRequest({ method: 'GET', url: `${base}/never`, headers: {}, timeoutMs: 50 })).rejects.toMatchObject({
      message: 'no answer in 50 ms',
      cause: { code: 'ETIMEDOUT' },
    });
  });
});
