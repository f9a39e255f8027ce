import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LocalCluster, ensureBinaries } from '../LocalCluster';
import { ApiRequester } from '../ApiRequester';
import { eventually } from '../testCluster';
import { NODE_NETWORK } from './hostNetwork';
import { REAL_NODE_NAME } from './RealNode';

/**
 * The real node's pod semantics, each checked against processes it really
 * ran: init order, env and volumes, probes, restarts and back-off, exit
 * reasons, termination, logs, port-forward, Service and DNS routing, the
 * blackholed ranges and a teardown that leaves nothing behind.
 */
jest.setTimeout(240_000);

const run = promisify(execFile);
let cluster: LocalCluster;
let api: ApiRequester;
let kubectl: string;
let ctl: string;
const ns = 'real';
const podPids = new Set<number>();

beforeAll(async () => {
  cluster = await LocalCluster.start({ realNode: true });
  api = cluster.api;
  kubectl = path.join(ensureBinaries(), 'kubectl');
  // Files the test flips to steer probes, shared with the pods as a hostPath.
  ctl = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-real-ctl-'));
  fs.chmodSync(ctl, 0o777);
  await api.apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  await eventually(
    'default ServiceAccount',
    async () =>
      (
        await api.request(
          'GET',
          `/api/v1/namespaces/${ns}/serviceaccounts/default`,
        )
      ).status === 200,
  );
});

afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(ctl, { recursive: true, force: true });
});

const k = (...args: string[]) =>
  run(kubectl, [`--kubeconfig=${cluster.kubeconfigPath}`, '-n', ns, ...args], {
    encoding: 'utf8',
  }).then(r => r.stdout);

async function pod(name: string): Promise<any> {
  const res = await api.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  return res.status === 200 ? res.body : undefined;
}

async function podUntil(
  name: string,
  what: string,
  check: (p: any) => boolean,
  timeoutMs = 90_000,
) {
  return eventually(
    what,
    async () => {
      const p = await pod(name);
      return p && check(p) ? p : undefined;
    },
    timeoutMs,
  );
}

const ready = (p: any) =>
  (p.status?.conditions ?? []).some(
    (c: any) => c.type === 'Ready' && c.status === 'True',
  );
const status = (p: any, c: string) =>
  [
    ...(p.status?.initContainerStatuses ?? []),
    ...(p.status?.containerStatuses ?? []),
  ].find((s: any) => s.name === c);

function createPod(
  name: string,
  spec: any,
  labels: Record<string, string> = {},
) {
  return api.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: { test: name, ...labels } },
    spec: { terminationGracePeriodSeconds: 5, ...spec },
  });
}

const withCtl = () => ({ name: 'ctl', hostPath: { path: ctl } });

/** A node program as a container command (the node image runs the host's node). */
const nodeScript = (src: string) => ['node', '-e', src];

const httpServer = `
const fs = require('fs');
require('http').createServer((req, res) => {
  if (req.url === '/healthz') { res.writeHead(fs.existsSync('/ctl/sick') ? 500 : 200); return res.end('ok'); }
  res.end(JSON.stringify({ host: require('os').hostname(), url: req.url }));
}).listen(8080, () => console.log('listening on 8080'));
process.on('SIGTERM', () => { console.log('SIGTERM'); process.exit(0); });
`;

describe('real node', () => {
  it("registers a Ready node with this machine's capacity and a lease", async () => {
    const node = (await api.request('GET', `/api/v1/nodes/${REAL_NODE_NAME}`))
      .body;
    expect(
      node.status.conditions.find((c: any) => c.type === 'Ready').status,
    ).toBe('True');
    expect(Number(node.status.capacity.cpu)).toBe(os.cpus().length);
    expect(node.spec.podCIDR).toBe(NODE_NETWORK.podCidr);
    const lease = await eventually('node lease', async () => {
      const r = await api.request(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${REAL_NODE_NAME}`,
      );
      return r.status === 200 ? r.body : undefined;
    });
    expect(lease.spec.holderIdentity).toBe(REAL_NODE_NAME);
  });

  it('runs init containers in order, then containers, with env, volumes and a pod address', async () => {
    await api.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's1', namespace: ns },
      stringData: { token: 'sekret' },
    });
    await api.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm1', namespace: ns },
      data: { greeting: 'hello', 'file.txt': 'from-configmap' },
    });
    await createPod('basics', {
      initContainers: [
        {
          name: 'one',
          image: 'busybox',
          command: ['sh', '-c', 'echo one >> /work/order'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
        {
          name: 'two',
          image: 'busybox',
          command: ['sh', '-c', 'echo two >> /work/order'],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
      containers: [
        {
          name: 'main',
          image: 'busybox',
          command: ['sh', '-c'],
          args: [
            'cat /work/order; echo "env=$GREETING $TOKEN $POD_NAME $POD_IP $(DERIVED)"; cat /cfg/file.txt; echo; cat /sec/token; echo; ' +
              'cat /info/name; echo; grep " /mem " /proc/self/mounts | cut -d" " -f3; hostname; id -u; echo kept > /tmp/mine; echo done; sleep 3600',
          ],
          env: [
            {
              name: 'GREETING',
              valueFrom: { configMapKeyRef: { name: 'cm1', key: 'greeting' } },
            },
            {
              name: 'TOKEN',
              valueFrom: { secretKeyRef: { name: 's1', key: 'token' } },
            },
            {
              name: 'POD_NAME',
              valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
            },
            {
              name: 'POD_IP',
              valueFrom: { fieldRef: { fieldPath: 'status.podIP' } },
            },
            { name: 'DERIVED', value: 'x-$(POD_NAME)' },
          ],
          securityContext: { runAsUser: 1234 },
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            { name: 'mem', mountPath: '/mem' },
            { name: 'cfg', mountPath: '/cfg', readOnly: true },
            { name: 'sec', mountPath: '/sec', readOnly: true },
            { name: 'info', mountPath: '/info', readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: 'work', emptyDir: {} },
        { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
        { name: 'cfg', configMap: { name: 'cm1' } },
        { name: 'sec', secret: { secretName: 's1' } },
        {
          name: 'info',
          downwardAPI: {
            items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }],
          },
        },
      ],
    });
    const p = await podUntil('basics', 'basics Ready', ready);
    expect(p.status.podIP).toMatch(/^10\.244\.0\.\d+$/);
    expect(p.status.phase).toBe('Running');
    expect(status(p, 'one').state.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
    expect(status(p, 'two').state.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
    const logs = await eventually('main logs', async () => {
      const out = await k('logs', 'basics', '-c', 'main');
      return out.includes('done') ? out : undefined;
    });
    expect(logs.split('\n')).toEqual([
      'one',
      'two',
      `env=hello sekret basics ${p.status.podIP} x-basics`,
      'from-configmap',
      'sekret',
      'basics',
      'tmpfs',
      'basics',
      '1234',
      'done',
      '',
    ]);
    // kubectl exec runs inside the running container: its root, its user.
    expect(
      await k(
        'exec',
        'basics',
        '-c',
        'main',
        '--',
        'sh',
        '-c',
        'cat /tmp/mine; id -u',
      ),
    ).toBe('kept\n1234\n');
  });

  it('drives readiness, liveness and startup from probes, restarting on liveness failure', async () => {
    await createPod('probed', {
      containers: [
        {
          name: 'web',
          image: 'node:20',
          command: nodeScript(httpServer),
          ports: [{ name: 'http', containerPort: 8080 }],
          startupProbe: {
            exec: { command: ['test', '-f', '/ctl/started'] },
            periodSeconds: 1,
            failureThreshold: 600,
          },
          readinessProbe: {
            exec: { command: ['test', '-f', '/ctl/ready'] },
            periodSeconds: 1,
          },
          livenessProbe: {
            httpGet: { path: '/healthz', port: 'http' },
            periodSeconds: 1,
            failureThreshold: 2,
          },
          volumeMounts: [{ name: 'ctl', mountPath: '/ctl' }],
        },
        {
          name: 'tcp',
          image: 'node:20',
          command: nodeScript(
            "require('net').createServer(s => s.end()).listen(9090)",
          ),
          readinessProbe: { tcpSocket: { port: 9090 }, periodSeconds: 1 },
        },
      ],
      volumes: [withCtl()],
    });
    let p = await podUntil(
      'probed',
      'tcp container ready',
      x => status(x, 'tcp')?.ready === true,
    );
    expect(status(p, 'web').started).toBe(false);
    expect(ready(p)).toBe(false);
    fs.writeFileSync(path.join(ctl, 'started'), '');
    p = await podUntil(
      'probed',
      'web started',
      x => status(x, 'web')?.started === true,
    );
    expect(ready(p)).toBe(false);
    fs.writeFileSync(path.join(ctl, 'ready'), '');
    await podUntil('probed', 'probed Ready', ready);
    fs.rmSync(path.join(ctl, 'ready'));
    await podUntil(
      'probed',
      'probed NotReady again',
      x => !ready(x) && status(x, 'web').state.running,
    );
    fs.writeFileSync(path.join(ctl, 'sick'), '');
    p = await podUntil(
      'probed',
      'web restarted by liveness',
      x => status(x, 'web').restartCount >= 1,
    );
    fs.rmSync(path.join(ctl, 'sick'));
    expect(status(p, 'web').lastState.terminated).toBeDefined();
    fs.writeFileSync(path.join(ctl, 'ready'), '');
    await podUntil('probed', 'probed Ready after restart', ready);
    const events = (
      await api.request(
        'GET',
        `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dprobed`,
      )
    ).body.items;
    expect(events.map((e: any) => e.reason)).toEqual(
      expect.arrayContaining(['Unhealthy', 'Killing', 'Started']),
    );
  });

  it('restarts crashing containers with back-off and reports exit reasons and phases', async () => {
    await createPod('crash', {
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: ['sh', '-c', 'echo crash-$PPID; exit 3'],
        },
      ],
    });
    await createPod('done', {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: ['sh', '-c', 'printf bye > /dev/termination-log'],
        },
      ],
    });
    await createPod('fail', {
      restartPolicy: 'Never',
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: ['sh', '-c', 'echo first; echo why-it-failed; exit 2'],
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
    });
    await createPod('init-error', {
      restartPolicy: 'Never',
      initContainers: [
        {
          name: 'init',
          image: 'busybox',
          command: ['sh', '-c', 'echo cannot; exit 1'],
        },
      ],
      containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }],
    });
    await createPod('init-crash', {
      initContainers: [
        { name: 'init', image: 'busybox', command: ['sh', '-c', 'exit 1'] },
      ],
      containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }],
    });
    const crash = await podUntil(
      'crash',
      'CrashLoopBackOff',
      x =>
        status(x, 'c')?.state.waiting?.reason === 'CrashLoopBackOff' &&
        status(x, 'c').restartCount >= 2,
    );
    expect(status(crash, 'c').lastState.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
    });
    expect(await k('logs', 'crash', '-c', 'c', '--previous')).toMatch(
      /^crash-\d+\n$/,
    );
    const done = await podUntil(
      'done',
      'Succeeded',
      x => x.status.phase === 'Succeeded',
    );
    expect(status(done, 'c').state.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
      message: 'bye',
    });
    const fail = await podUntil(
      'fail',
      'Failed',
      x => x.status.phase === 'Failed',
    );
    expect(status(fail, 'c').state.terminated).toMatchObject({
      exitCode: 2,
      reason: 'Error',
      message: 'first\nwhy-it-failed',
    });
    const initError = await podUntil(
      'init-error',
      'Failed by init',
      x => x.status.phase === 'Failed',
    );
    expect(status(initError, 'init').state.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
    });
    expect(status(initError, 'c').state.waiting.reason).toBe('PodInitializing');
    expect(await k('logs', 'init-error', '-c', 'init')).toBe('cannot\n');
    const initCrash = await podUntil(
      'init-crash',
      'Init:CrashLoopBackOff',
      x => status(x, 'init')?.state.waiting?.reason === 'CrashLoopBackOff',
    );
    expect(initCrash.status.phase).toBe('Pending');
  });

  it('restarts a container whose startup probe never passes, and OnFailure containers until they succeed', async () => {
    await createPod('never-starts', {
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: ['sleep', '3600'],
          startupProbe: {
            exec: { command: ['test', '-f', '/ctl/never'] },
            periodSeconds: 1,
            failureThreshold: 2,
          },
          volumeMounts: [{ name: 'ctl', mountPath: '/ctl' }],
        },
      ],
      volumes: [withCtl()],
    });
    await createPod('on-failure', {
      restartPolicy: 'OnFailure',
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: [
            'sh',
            '-c',
            'if [ -f /ctl/second-try ]; then echo ok; else touch /ctl/second-try; exit 1; fi',
          ],
          volumeMounts: [{ name: 'ctl', mountPath: '/ctl' }],
        },
      ],
      volumes: [withCtl()],
    });
    const restarted = await podUntil(
      'never-starts',
      'restart by the startup probe',
      x => status(x, 'c')?.restartCount >= 1,
    );
    expect(status(restarted, 'c').started).toBe(false);
    const events = (
      await api.request(
        'GET',
        `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dnever-starts`,
      )
    ).body.items;
    expect(events.map((e: any) => e.message).join('\n')).toMatch(
      /failed startup probe/,
    );
    const done = await podUntil(
      'on-failure',
      'Succeeded after one retry',
      x => x.status.phase === 'Succeeded',
    );
    expect(status(done, 'c')).toMatchObject({
      restartCount: 1,
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
    });
    expect(status(done, 'c').lastState.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
    });
  });

  it("keeps a PersistentVolume's data across pods and removes it with the volume", async () => {
    await api.apply({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: ns },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'standard',
        resources: { requests: { storage: '1Gi' } },
      },
    });
    const writer = (name: string, cmd: string) =>
      createPod(name, {
        restartPolicy: 'Never',
        securityContext: { runAsUser: 1000, fsGroup: 3000 },
        containers: [
          {
            name: 'c',
            image: 'busybox',
            command: ['sh', '-c', cmd],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
        ],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
        ],
      });
    await writer('pv-write', 'echo kept > /data/file');
    await podUntil(
      'pv-write',
      'writer done',
      x => x.status.phase === 'Succeeded',
    );
    await api.request('DELETE', `/api/v1/namespaces/${ns}/pods/pv-write`);
    await writer('pv-read', 'cat /data/file');
    await podUntil(
      'pv-read',
      'reader done',
      x => x.status.phase === 'Succeeded',
    );
    expect(await k('logs', 'pv-read')).toBe('kept\n');
    const pvName = (
      await api.request(
        'GET',
        `/api/v1/namespaces/${ns}/persistentvolumeclaims/data`,
      )
    ).body.spec.volumeName;
    const dir = path.join(cluster.realNode!.workDir, 'pv', pvName);
    expect(fs.readFileSync(path.join(dir, 'file'), 'utf8')).toBe('kept\n');
    await api.request('DELETE', `/api/v1/namespaces/${ns}/pods/pv-read`);
    await eventually('reader gone', async () => !(await pod('pv-read')));
    await api.request(
      'DELETE',
      `/api/v1/namespaces/${ns}/persistentvolumeclaims/data`,
    );
    await eventually(
      'PV directory removed with the PV',
      async () => !fs.existsSync(dir),
      90_000,
      1000,
    );
  });

  it('fails images it has no program for, and root under runAsNonRoot, as a kubelet does', async () => {
    await createPod('no-image', {
      containers: [{ name: 'c', image: 'example.com/nothing:1.0' }],
    });
    await createPod('root', {
      securityContext: { runAsNonRoot: true },
      containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }],
    });
    const noImage = await podUntil(
      'no-image',
      'ErrImageNeverPull',
      x => status(x, 'c')?.state.waiting?.reason === 'ErrImageNeverPull',
    );
    expect(status(noImage, 'c').state.waiting.message).toContain(
      'example.com/nothing:1.0',
    );
    const root = await podUntil(
      'root',
      'CreateContainerConfigError',
      x =>
        status(x, 'c')?.state.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(status(root, 'c').state.waiting.message).toContain('runAsNonRoot');
  });

  it('terminates with SIGTERM and kills with SIGKILL after the grace period', async () => {
    await createPod('graceful', {
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: [
            'sh',
            '-c',
            "trap 'echo term > /ctl/graceful; exit 0' TERM; touch /tmp/armed; while :; do sleep 0.2; done",
          ],
          // Ready once the trap is set: a SIGTERM before it would prove nothing.
          readinessProbe: {
            exec: { command: ['test', '-f', '/tmp/armed'] },
            periodSeconds: 1,
          },
          volumeMounts: [{ name: 'ctl', mountPath: '/ctl' }],
        },
      ],
      volumes: [withCtl()],
    });
    await createPod('stubborn', {
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: 'c',
          image: 'busybox',
          command: [
            'sh',
            '-c',
            "trap 'echo ignored > /ctl/stubborn' TERM; touch /tmp/armed; while :; do sleep 0.2; done",
          ],
          // Ready once the trap is set: a SIGTERM before it would prove nothing.
          readinessProbe: {
            exec: { command: ['test', '-f', '/tmp/armed'] },
            periodSeconds: 1,
          },
          volumeMounts: [{ name: 'ctl', mountPath: '/ctl' }],
        },
      ],
      volumes: [withCtl()],
    });
    await podUntil('graceful', 'graceful Ready', ready);
    await podUntil('stubborn', 'stubborn Ready', ready);
    await api.request('DELETE', `/api/v1/namespaces/${ns}/pods/graceful`);
    await api.request('DELETE', `/api/v1/namespaces/${ns}/pods/stubborn`);
    await eventually(
      'both pods gone',
      async () => !(await pod('graceful')) && !(await pod('stubborn')),
      60_000,
    );
    expect(fs.readFileSync(path.join(ctl, 'graceful'), 'utf8')).toBe('term\n');
    // It got SIGTERM, ignored it, and is gone anyway: SIGKILL after 2 s.
    expect(fs.readFileSync(path.join(ctl, 'stubborn'), 'utf8')).toBe(
      'ignored\n',
    );
  });

  it('routes Services and resolves cluster names from pods; the host reaches ClusterIPs', async () => {
    for (const i of [0, 1]) {
      await createPod(
        `web-${i}`,
        {
          hostname: `web-${i}`,
          subdomain: 'peers',
          containers: [
            {
              name: 'web',
              image: 'node:20',
              command: nodeScript(httpServer),
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
            },
          ],
        },
        { app: 'web' },
      );
    }
    await api.apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: ns },
      spec: {
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 80, targetPort: 'http' }],
      },
    });
    await api.apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'peers', namespace: ns },
      spec: {
        clusterIP: 'None',
        selector: { app: 'web' },
        ports: [{ name: 'http', port: 8080 }],
      },
    });
    await podUntil('web-0', 'web-0 Ready', ready);
    await podUntil('web-1', 'web-1 Ready', ready);
    const client = `
      const dns = require('dns').promises;
      (async () => {
        for (const url of ['http://web/', 'http://web.${ns}.svc.cluster.local/a', 'http://web-1.peers.${ns}.svc:8080/b']) {
          const body = await (await fetch(url)).json();
          console.log(url, body.host);
        }
        console.log('web-0', (await dns.lookup('web-0.peers.${ns}.svc.cluster.local')).address);
        try { await dns.lookup('example.com'); console.log('resolved outside'); } catch (e) { console.log('outside', e.code); }
      })().catch(e => { console.error(e); process.exit(1); });`;
    await createPod('client', {
      restartPolicy: 'Never',
      containers: [
        { name: 'c', image: 'node:20', command: nodeScript(client) },
      ],
    });
    const done = await podUntil('client', 'client finished', x =>
      ['Succeeded', 'Failed'].includes(x.status.phase),
    );
    const logs = await k('logs', 'client');
    expect(done.status.phase).toBe('Succeeded');
    const web0 = await pod('web-0');
    expect(logs).toMatch(/^http:\/\/web\/ web-[01]$/m);
    expect(logs).toMatch(
      new RegExp(
        `^http://web\\.${ns}\\.svc\\.cluster\\.local/a web-[01]$`,
        'm',
      ),
    );
    expect(logs).toMatch(
      new RegExp(`^http://web-1\\.peers\\.${ns}\\.svc:8080/b web-1$`, 'm'),
    );
    expect(logs).toContain(`web-0 ${web0.status.podIP}`);
    expect(logs).toContain('outside ENOTFOUND');
    const svc = (
      await api.request('GET', `/api/v1/namespaces/${ns}/services/web`)
    ).body;
    const fromHost = await eventually('ClusterIP from the host', async () => {
      const r = await fetch(`http://${svc.spec.clusterIP}/`, {
        signal: AbortSignal.timeout(2000),
      });
      return (await r.json()) as { host: string };
    });
    expect(fromHost.host).toMatch(/^web-[01]$/);
  });

  it('serves kubectl logs and port-forward through the API server', async () => {
    // The stats summary, through the API server's node proxy: each running
    // container's resident memory, read from its process group.
    const summary = (
      await api.request(
        'GET',
        `/api/v1/nodes/${REAL_NODE_NAME}/proxy/stats/summary`,
      )
    ).body;
    const web0 = summary.pods.find(
      (x: any) => x.podRef.namespace === ns && x.podRef.name === 'web-0',
    );
    expect(web0.containers[0].memory.workingSetBytes).toBeGreaterThan(1 << 20);
    expect(web0.memory.workingSetBytes).toBe(
      web0.containers[0].memory.workingSetBytes,
    );
    const port = await new Promise<number>(resolve => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const pf = execFile(kubectl, [
      `--kubeconfig=${cluster.kubeconfigPath}`,
      '-n',
      ns,
      'port-forward',
      'pod/web-0',
      `${port}:8080`,
    ]);
    try {
      const body = await eventually(
        'port-forward answers',
        () =>
          new Promise<string | undefined>(resolve => {
            http
              .get(`http://127.0.0.1:${port}/pf`, res => {
                let b = '';
                res.on('data', c => (b += c));
                res.on('end', () => resolve(b));
              })
              .on('error', () => resolve(undefined));
          }),
      );
      expect(JSON.parse(body)).toEqual({ host: 'web-0', url: '/pf' });
    } finally {
      pf.kill();
    }
    expect(await k('logs', 'web-0', '--tail=1')).toBe('listening on 8080\n');
  });

  it('drops traffic to unused addresses of the pod and Service ranges on the host', async () => {
    const blackholes = (
      await run('ip', ['route', 'show', 'type', 'blackhole'], {
        encoding: 'utf8',
      })
    ).stdout;
    expect(blackholes).toContain(NODE_NETWORK.podRange);
    expect(blackholes).toContain(NODE_NETWORK.serviceRange);
    // Outside the bridge's /24 the pod range has no route but the blackhole.
    await expect(run('ip', ['route', 'get', '10.244.200.1'])).rejects.toThrow(
      /Invalid argument/,
    );
    // The Service range leads onto the harness's bridge (for kube-proxy's
    // DNAT), never to the default route.
    const svcRoute = (
      await run('ip', ['route', 'get', '10.96.255.250'], { encoding: 'utf8' })
    ).stdout;
    expect(svcRoute).toContain(`dev ${NODE_NETWORK.bridge}`);
    for (const addr of ['10.96.255.250', '10.244.200.1', '10.244.0.250']) {
      const outcome = await new Promise<string>(resolve => {
        const s = net.connect({ host: addr, port: 80, timeout: 1500 });
        s.on('connect', () => resolve('connected'));
        s.on('timeout', () => {
          s.destroy();
          resolve('dropped');
        });
        s.on('error', e =>
          resolve(`error ${(e as NodeJS.ErrnoException).code}`),
        );
      });
      expect(outcome).not.toBe('connected');
    }
  });

  it('leaves no process, namespace, link, route, rule or mount after stop', async () => {
    const pids = cluster.pids();
    const netns = fs
      .readdirSync('/run/netns')
      .filter(n => n.startsWith(NODE_NETWORK.netnsPrefix));
    for (const n of netns) {
      const { stdout } = await run('ip', ['netns', 'pids', n], {
        encoding: 'utf8',
      });
      stdout
        .split('\n')
        .filter(Boolean)
        .forEach(p => podPids.add(Number(p)));
    }
    expect(netns.length).toBeGreaterThan(0);
    expect(podPids.size).toBeGreaterThan(0);
    await cluster.stop();
    const alive = [...pids, ...podPids].filter(pid => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
    expect(LocalCluster.realNodeLeftovers()).toEqual([]);
  });
});
