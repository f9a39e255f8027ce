/* eslint-disable no-console */
/**
 * Portal smoke test: builds the app bundle, starts the backend (which serves
 * the bundle through the app-backend plugin), checks that it answers on :7007,
 * then stops it by PID.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const port = 7007;

async function waitForHttp(url: string, timeoutMs: number, alive: () => boolean) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('backend exited before answering');
    try {
      const res = await fetch(url);
      if (res.ok) return res;
      last = `HTTP ${res.status}`;
    } catch (e) {
      last = String(e);
    }
    await new Promise(r => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${last})`);
}

async function main() {
  console.log('smoke: building the app bundle ...');
  const build = spawnSync('npx', ['backstage-cli', 'package', 'build'], {
    cwd: path.join(root, 'packages/app'),
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('app build failed');

  console.log('smoke: starting the backend ...');
  const backend = spawn('npx', ['backstage-cli', 'package', 'start'], {
    cwd: path.join(root, 'packages/backend'),
    stdio: ['ignore', 'inherit', 'inherit'],
    // Its own process group, so stopping it also stops the runner's children.
    detached: true,
    env: { ...process.env, NODE_ENV: 'development' },
  });
  let exited = false;
  backend.on('exit', () => (exited = true));
  const stop = () => {
    if (!exited && backend.pid) process.kill(-backend.pid, 'SIGTERM');
  };
  process.on('exit', stop);
  try {
    const health = await waitForHttp(
      `http://127.0.0.1:${port}/api/inference-platform/health`,
      180_000,
      () => !exited,
    );
    const body = await health.json();
    if (body.status !== 'ok') throw new Error(`unexpected health body ${JSON.stringify(body)}`);
    if (process.env.KUBECONFIG) {
      // The embedded operator must reach the cluster and fill its caches.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const h = await (await fetch(`http://127.0.0.1:${port}/api/inference-platform/health`)).json();
        if (h.operator?.synced) break;
        if (Date.now() > deadline) throw new Error(`operator never synced: ${JSON.stringify(h)}`);
        await new Promise(r => setTimeout(r, 500));
      }
      console.log('smoke: embedded operator synced with the cluster');
    }
    const index = await waitForHttp(`http://127.0.0.1:${port}/`, 30_000, () => !exited);
    const html = await index.text();
    if (!html.includes('<title>CV Inference Platforms</title>')) {
      throw new Error('the backend does not serve the built app');
    }
    console.log('smoke: backend answers on :7007 and serves the app bundle');
  } finally {
    stop();
    const deadline = Date.now() + 20_000;
    while (!exited && Date.now() < deadline) await new Promise(r => setTimeout(r, 200));
    if (!exited && backend.pid) process.kill(-backend.pid, 'SIGKILL');
  }
  console.log('1 passed, 0 failed');
}

main().catch(e => {
  console.error(`smoke: FAILED: ${e instanceof Error ? e.message : e}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
