import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { createTestNamespace, deleteTestNamespace, eventually, testApi, testKubeconfigPath } from '@cv-platform/local-cluster';
import { KubeClient, ResourceRef } from '../kube/KubeClient';
import { Logger } from '../logger';
import { Informer } from './Informer';

jest.setTimeout(120_000);

const api = testApi();
const CONFIG_MAPS: ResourceRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const LABEL = 'cv.platform.tech/soak';

/** A logger that keeps warnings and errors: a healthy informer logs none. */
function recordingLogger() {
  const warnings: string[] = [];
  const logger: Logger = {
    info: () => {},
    warn: m => warnings.push(m),
    error: m => warnings.push(m),
  };
  return { warnings, logger };
}

/**
 * The run's kubeconfig rewritten so that the CA bundle is a file (as the
 * in-cluster service-account CA is) and the server may go through a proxy.
 */
function writeKubeconfig(dir: string, server?: string) {
  const kc = yaml.load(fs.readFileSync(testKubeconfigPath(), 'utf8')) as any;
  const cluster = kc.clusters[0].cluster;
  const caFile = path.join(dir, 'ca.crt');
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  fs.writeFileSync(caFile, ca);
  delete cluster['certificate-authority-data'];
  cluster['certificate-authority'] = caFile;
  const upstream = new URL(cluster.server);
  if (server) cluster.server = server;
  const file = path.join(dir, 'kubeconfig');
  fs.writeFileSync(file, yaml.dump(kc));
  const config = new KubeConfig();
  config.loadFromFile(file);
  return { config, caFile, ca, upstream };
}

/** Writes one change per call, remembering every resourceVersion the server gave out. */
function changer(ns: string) {
  const written: string[] = [];
  let n = 0;
  return {
    written,
    async change() {
      n++;
      const name = `cm-${n % 5}`;
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [LABEL]: 'true' } }, data: { n: String(n) } };
      const res = await api.request(
        'PATCH',
        `/api/v1/namespaces/${ns}/configmaps/${name}?fieldManager=soak&force=true`,
        body,
        'application/apply-patch+yaml',
      );
      if (res.status >= 300) throw new Error(JSON.stringify(res.body));
      written.push(res.body.metadata.resourceVersion);
    },
  };
}

function watchInformer(client: KubeClient, ns: string, logger: Logger, extra: Partial<ConstructorParameters<typeof Informer>[2]> = {}) {
  const informer = new Informer(client, CONFIG_MAPS, { namespace: ns, labelSelector: LABEL, logger, ...extra });
  const seen = new Set<string>();
  informer.on((_type, obj) => seen.add(obj.metadata.resourceVersion));
  return { informer, seen };
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

describe('Informer over a long run', () => {
  let ns: string;
  let dir: string;
  beforeAll(async () => {
    ns = await createTestNamespace(api, 'informer-long');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'informer-long-'));
  });
  afterAll(async () => {
    await deleteTestNamespace(api, ns);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its watch through credential rotations and server-side timeouts: no relist, no warning, every change', async () => {
    const { config, caFile, ca } = writeKubeconfig(fs.mkdtempSync(path.join(dir, 'rotate-')));
    // A second CA in the bundle, as during a CA rotation: each refresh reads
    // a bundle that differs from the last, so each refresh replaces the agent.
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', path.join(dir, 'next-ca.key'), '-out', path.join(dir, 'next-ca.crt'), '-days', '1', '-subj', '/CN=next-ca'],
    { stdio: 'ignore' });
    const bundles = [ca, `${ca}\n${fs.readFileSync(path.join(dir, 'next-ca.crt'), 'utf8')}`];
    const client = new KubeClient(config, undefined, { credentialRefreshMs: 200 });
    const { warnings, logger } = recordingLogger();
    const { informer, seen } = watchInformer(client, ns, logger, { watchTimeoutSeconds: 2 });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    await informer.waitForSync();
    const { written, change } = changer(ns);
    // 14 s: seven server-side watch timeouts and ~70 credential refreshes.
    for (let i = 0; i < 56; i++) {
      fs.writeFileSync(caFile, bundles[i % 2]);
      await change();
      await sleep(250);
      // Other requests on the same client, as a busy operator makes: each
      // re-reads the credentials and finds a new bundle while the watch is open.
      await client.get(`/api/v1/namespaces/${ns}`);
    }
    await eventually('last change delivered', async () => seen.has(written[written.length - 1]), 10_000, 50);
    expect(written.filter(rv => !seen.has(rv))).toEqual([]);
    expect(warnings).toEqual([]);
    expect(informer.relists).toBe(1);
    expect(informer.restarts).toBe(0);
    expect(informer.maxBackoffMs).toBe(0);
    expect(informer.watchResumes).toBeGreaterThanOrEqual(5);
    expect(client.agentRotations).toBeGreaterThanOrEqual(40);
    stop.abort();
    await run;
    client.close();
  });

  it('resumes a dropped connection from its resourceVersion, and backs off only failures that come quickly', async () => {
    // A TCP proxy in front of the API server whose connections the test can cut.
    const sockets = new Set<net.Socket>();
    let refuse = false;
    const { upstream } = writeKubeconfig(dir);
    const proxy = net.createServer(downstream => {
      if (refuse) {
        downstream.destroy();
        return;
      }
      const up = net.connect(Number(upstream.port), upstream.hostname);
      sockets.add(downstream).add(up);
      const drop = () => {
        downstream.destroy();
        up.destroy();
        sockets.delete(downstream);
        sockets.delete(up);
      };
      downstream.on('error', drop).on('close', drop);
      up.on('error', drop).on('close', drop);
      downstream.pipe(up).pipe(downstream);
    });
    await new Promise<void>(r => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as net.AddressInfo).port;
    const { config } = writeKubeconfig(fs.mkdtempSync(path.join(dir, 'proxy-')), `https://127.0.0.1:${port}`);
    const client = new KubeClient(config);
    const { warnings, logger } = recordingLogger();
    const { informer, seen } = watchInformer(client, ns, logger, { healthyWatchMs: 500, minBackoffMs: 100 });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    await informer.waitForSync();
    const { written, change } = changer(ns);
    const cut = () => sockets.forEach(s => s.destroy());
    try {
      // Healthy streams cut: each resumes at once from where it was.
      for (let i = 0; i < 5; i++) {
        await sleep(800);
        cut();
        await change();
      }
      await eventually('changes after cuts delivered', async () => seen.has(written[written.length - 1]), 10_000, 50);
      expect(written.filter(rv => !seen.has(rv))).toEqual([]);
      expect(warnings).toEqual([]);
      expect(informer.relists).toBe(1);
      expect(informer.maxBackoffMs).toBe(0);
      expect(informer.watchResumes).toBeGreaterThanOrEqual(5);

      // The server unreachable: quick failures back off, and say so.
      refuse = true;
      await sleep(800);
      cut();
      await change();
      await eventually('backed off twice', async () => informer.restarts >= 2, 10_000, 50);
      expect(warnings.length).toBe(informer.restarts);
      expect(informer.maxBackoffMs).toBeGreaterThanOrEqual(200);
      refuse = false;
      await change();
      await eventually('changes after the outage delivered', async () => seen.has(written[written.length - 1]), 20_000, 50);
      expect(written.filter(rv => !seen.has(rv))).toEqual([]);
      // A dropped connection never cost a LIST.
      expect(informer.relists).toBe(1);
    } finally {
      stop.abort();
      await run;
      client.close();
      cut();
      proxy.close();
    }
  });
});
