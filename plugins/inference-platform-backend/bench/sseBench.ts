/* eslint-disable no-console */
/**
 * SSE feed benchmark (not a test). A private local control plane, the
 * operator's informer, the plugin's PlatformFeed behind a plain HTTP server;
 * N clients in a separate process. For each of M changes made through the
 * Kubernetes API, the time until every client has the change:
 *   - live feed at 1, 100 and 1,000 clients;
 *   - side by side, the baseline the feed replaces: clients polling the list
 *     every 10 s, as Backstage's Kubernetes plugin does.
 * Also the server's memory per connected client.
 *
 *   npm run bench -w @cv-platform/plugin-inference-platform-backend -- [clients ...]
 */
import { fork, ChildProcess } from 'node:child_process';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { LocalCluster } from '@cv-platform/local-cluster';
import { loadKubeConfig, Operator } from '@cv-platform/operator';
import { sampleInferencePlatform, toV1beta1 } from '@cv-platform/inference-platform-api';
import { PlatformFeed } from '../src/service/PlatformFeed';

const CHANGES = 20;
const CHANGE_INTERVAL_MS = 250;
const POLL_MS = 10_000;

function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

function waitMessage(child: ChildProcess, key: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const on = (m: any) => {
      if (m[key] !== undefined) {
        child.off('message', on);
        resolve(m);
      }
    };
    child.on('message', on);
    child.once('exit', code => reject(new Error(`clients exited with ${code}`)));
  });
}

async function run(
  cluster: LocalCluster,
  ns: string,
  url: string,
  mode: 'sse' | 'poll',
  clients: number,
  seqBase: number,
) {
  (globalThis as any).gc?.();
  const before = process.memoryUsage();
  const child = fork(path.join(__dirname, 'sseClients.ts'), [mode, url, String(clients), String(POLL_MS)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await waitMessage(child, 'ready');
  (globalThis as any).gc?.();
  const after = process.memoryUsage();
  const sent = new Map<number, bigint>();
  for (let i = 1; i <= CHANGES; i++) {
    const seq = seqBase + i;
    sent.set(seq, process.hrtime.bigint());
    await cluster.request(
      'PATCH',
      `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms/bench`,
      { metadata: { labels: { 'bench-seq': String(seq) } } },
      'application/merge-patch+json',
    );
    await new Promise(r => setTimeout(r, CHANGE_INTERVAL_MS));
  }
  // Pollers see the last changes only at their next poll.
  await new Promise(r => setTimeout(r, mode === 'poll' ? POLL_MS + 1000 : 1000));
  child.send({ collect: true });
  const { results } = await waitMessage(child, 'results');
  child.kill();
  const latencies: number[] = [];
  let missing = 0;
  for (const perClient of results as Array<Array<[number, string]>>) {
    const got = new Map(perClient.map(([s, t]) => [s, BigInt(t)]));
    for (const [seq, t0] of sent) {
      const t = got.get(seq);
      // A poller that skipped over a change sees it with the next one: use the first later observation.
      const later = [...got.entries()].filter(([s]) => s >= seq).map(([, v]) => v);
      const first = t ?? (later.length ? later.reduce((a, b) => (a < b ? a : b)) : undefined);
      if (first === undefined) missing++;
      else latencies.push(Number(first - t0) / 1e6);
    }
  }
  return {
    mode: mode === 'sse' ? 'SSE feed' : `poll every ${POLL_MS / 1000}s`,
    clients,
    p50ms: +pct(latencies, 50).toFixed(1),
    p99ms: +pct(latencies, 99).toFixed(1),
    missing,
    // Heap + buffers after GC; too noisy to mean anything below 100 clients.
    serverKbPerClient:
      clients >= 100
        ? +((after.heapUsed + after.external - before.heapUsed - before.external) / 1024 / clients).toFixed(1)
        : 'n/a',
  };
}

async function main() {
  const args = process.argv.slice(2).map(Number).filter(n => n > 0);
  const counts = args.length ? args : [1, 100, 1000];
  const cluster = await LocalCluster.start({ log: m => console.error(m) });
  // Stopped early (Ctrl-C): take the control plane down with us.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => void cluster.stop().finally(() => process.exit(130)));
  }
  const ns = 'default';
  const operator = new Operator({
    kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
    namespaces: [ns],
    reconcile: false,
  });
  const server = http.createServer();
  try {
    await operator.start();
    const p = sampleInferencePlatform('bench', ns);
    await cluster.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(p));
    const feed = new PlatformFeed(operator);
    const app = express();
    app.get('/events', (req, res) => feed.connect(req, res));
    app.get('/platforms', (_req, res) => res.json({ items: operator.platforms() }));
    server.on('request', app);
    server.maxConnections = 5000;
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const rows = [];
    let seq = 0;
    for (const n of counts) {
      rows.push(await run(cluster, ns, `${base}/events`, 'sse', n, seq));
      seq += CHANGES;
      console.table(rows);
    }
    const pollClients = Math.min(100, Math.max(...counts));
    const poll = await run(cluster, ns, `${base}/platforms`, 'poll', pollClients, seq);
    rows.push(poll);
    console.table(rows);
    const sseSame = rows.find(r => r.mode === 'SSE feed' && r.clients === pollClients) ?? rows[0];
    console.log(
      `\nbaseline ratio at ${pollClients} clients: polling p50 is ${(poll.p50ms / sseSame.p50ms).toFixed(0)}x the feed's, p99 ${(poll.p99ms / sseSame.p99ms).toFixed(0)}x`,
    );
    console.log('target: SSE p99 <= 250 ms at 1,000 clients');
    console.log(JSON.stringify(rows));
    feed.close();
  } finally {
    server.closeAllConnections?.();
    server.close();
    await operator.stop();
    await cluster.stop();
  }
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
