import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { ManagedProcess } from './ManagedProcess';
import { runBuildScript } from './runBuildScript';
import { findRepoRoot } from './findRepoRoot';
import { ApiRequester } from './ApiRequester';
import { createPki, Pki } from './pki';
import { freePort } from './freePort';
import { kwokConfig } from './kwokConfig';
import { SimulatedQdrant } from './simulatedQdrant/SimulatedQdrant';
import { FAKE_NODES, fakeNodeManifest } from './fakeNodes';
import {
  acquireHostLock,
  assertCanHostRealPods,
  hostNetworkLeftovers,
  NODE_NETWORK,
  setUpHostNetwork,
  tearDownHostNetwork,
} from './realNode/hostNetwork';
import {
  REAL_NODE_NAME,
  RealNodeProcesses,
  cleanUpProxyRules,
  startRealNode,
  unmountUnder,
} from './realNode/RealNode';
import { startMetricsServer } from './realNode/metricsServer';

export interface LocalClusterOptions {
  /** Where certs, data and logs go; a fresh temp dir by default. */
  workDir?: string;
  /** Directory of CRD manifests to install (default: <repo>/deploy/crds). */
  crdDir?: string;
  /** Keep workDir after stop (logs for debugging). */
  keepWorkDir?: boolean;
  log?: (message: string) => void;
  readyTimeoutMs?: number;
  /** More CPU nodes beyond the standard four (benchmarks with thousands of pods). */
  extraCpuNodes?: number;
  /**
   * A real node (`local-node`) whose pods run as local processes, with pod
   * networking, cluster DNS and Service ClusterIPs. Needs root and network
   * namespaces; fails (never simulates) when the machine cannot.
   */
  realNode?: boolean;
  /**
   * The real node advertises these GPUs (`nvidia.com/gpu` and the product
   * label) without having them: GPU pods run there for real, and find no CUDA.
   */
  realNodeClaimsGpus?: { count: number; product: string };
  /** KWOK's simulated nodes; default on without a real node, off with one. */
  simulatedNodes?: boolean;
  /** How long to wait for another run's real node to stop (one per machine). */
  realNodeLockTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));


/** Builds (or reuses from the cache) the control-plane binaries; returns their directory. */
export function ensureBinaries(repoRoot = findRepoRoot()): string {
  return runBuildScript(repoRoot, 'tools/control-plane/build.sh', 'the control plane');
}

interface Probe {
  url: string;
  headers?: Record<string, string>;
  ca?: string;
}

function get(probe: Probe): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(probe.url);
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        headers: probe.headers,
        ca: probe.ca,
        // The controller-manager and scheduler serve self-signed certs.
        rejectUnauthorized: Boolean(probe.ca),
        timeout: 2000,
      },
      res => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', c => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * A real Kubernetes control plane on 127.0.0.1: etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler and KWOK simulating four Nodes
 * (three CPU nodes in two zones, one GPU node).
 */
export class LocalCluster {
  readonly processes: ManagedProcess[] = [];
  server = '';
  kubeconfigPath = '';
  private podRelay?: net.Server;
  private podRelaySockets = new Set<net.Socket>();
  private pki?: Pki;
  private requester?: ApiRequester;
  private removeExitHook?: () => void;
  private releaseHostLock?: () => void;
  /** Set when the cluster has a real node. */
  realNode?: RealNodeProcesses;
  /** Answers for the Qdrant pods of the simulated nodes (which run no containers). */
  simulatedQdrant?: SimulatedQdrant;

  private constructor(
    readonly workDir: string,
    private readonly options: LocalClusterOptions,
  ) {}

  static async start(options: LocalClusterOptions = {}): Promise<LocalCluster> {
    const workDir =
      options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cv-local-cluster-'));
    fs.mkdirSync(workDir, { recursive: true });
    const cluster = new LocalCluster(workDir, options);
    // If this process dies without stop(), take the components with it.
    const killAll = () => {
      cluster.processes.forEach(p => p.kill());
      if (cluster.releaseHostLock) cluster.cleanUpRealNode();
    };
    process.once('exit', killAll);
    cluster.removeExitHook = () => process.removeListener('exit', killAll);
    try {
      await cluster.boot();
    } catch (e) {
      await cluster.stop();
      throw e;
    }
    return cluster;
  }

  get adminToken(): string {
    return this.pki!.adminToken;
  }

  get caFile(): string {
    return this.pki!.caCert;
  }

  pids(): number[] {
    return this.processes.map(p => p.pid).filter((p): p is number => !!p);
  }

  private log(message: string) {
    (this.options.log ?? (m => process.stderr.write(`[local-cluster] ${m}\n`)))(message);
  }

  private async boot() {
    const started = Date.now();
    // Say so at once, before building or starting anything.
    if (this.options.realNode) assertCanHostRealPods();
    const repoRoot = findRepoRoot();
    const bin = ensureBinaries(repoRoot);
    const stagesDir = path.join(bin, '..', 'stages');
    const w = (...p: string[]) => path.join(this.workDir, ...p);
    fs.mkdirSync(w('logs'), { recursive: true });
    if (this.options.realNode) {
      this.releaseHostLock = await acquireHostLock(this.options.realNodeLockTimeoutMs ?? 15 * 60_000);
      // Before any component starts: the ranges are blackholed first.
      setUpHostNetwork();
    }
    this.pki = createPki(w('pki'));
    const [etcdPort, etcdPeerPort, apiPort, kcmPort, schedPort, kwokPort] = await Promise.all(
      Array.from({ length: 6 }, () => freePort()),
    );
    this.server = `https://127.0.0.1:${apiPort}`;
    const pki = this.pki;

    const etcd = this.spawn(bin, 'etcd', [
      '--name=local',
      `--data-dir=${w('etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=local=http://127.0.0.1:${etcdPeerPort}`,
      '--listen-metrics-urls=',
      // Test data is disposable; fsync dominates etcd latency on shared disks.
      '--unsafe-no-fsync',
      '--quota-backend-bytes=4294967296',
      '--log-level=warn',
    ]);
    await this.waitFor(etcd, async () => {
      const r = await get({ url: `http://127.0.0.1:${etcdPort}/health` });
      return r.status === 200 && r.body.includes('true');
    });

    const apiserver = this.spawn(bin, 'kube-apiserver', [
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--token-auth-file=${pki.tokenFile}`,
      `--kubelet-client-certificate=${pki.kubeletClientCert}`,
      `--kubelet-client-key=${pki.kubeletClientKey}`,
      '--authorization-mode=Node,RBAC',
      // As OpenShift: setting blockOwnerDeletion takes update on the owner's
      // finalizers, so RBAC that misses it fails here too.
      '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--allow-privileged=true',
      // The aggregation layer, for extension API servers (metrics-server on the real node's cluster).
      `--requestheader-client-ca-file=${pki.frontProxyCaCert}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      `--proxy-client-cert-file=${pki.frontProxyClientCert}`,
      `--proxy-client-key-file=${pki.frontProxyClientKey}`,
      '--enable-aggregator-routing=true',
      '--profiling=false',
      '--v=0',
    ]);
    const ca = fs.readFileSync(pki.caCert, 'utf8');
    const auth = { Authorization: `Bearer ${pki.adminToken}` };
    await this.waitFor(apiserver, async () => {
      const r = await get({ url: `${this.server}/readyz`, headers: auth, ca });
      return r.status === 200;
    });

    this.kubeconfigPath = w('kubeconfig');
    fs.writeFileSync(this.kubeconfigPath, this.kubeconfig(), { mode: 0o600 });
    fs.writeFileSync(w('kwok.yaml'), kwokConfig(stagesDir));

    const common = [
      `--kubeconfig=${this.kubeconfigPath}`,
      `--authentication-kubeconfig=${this.kubeconfigPath}`,
      `--authorization-kubeconfig=${this.kubeconfigPath}`,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      '--kube-api-qps=200',
      '--kube-api-burst=400',
    ];
    const kcm = this.spawn(bin, 'kube-controller-manager', [
      ...common,
      `--secure-port=${kcmPort}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--root-ca-file=${pki.caCert}`,
      '--use-service-account-credentials=false',
      '--controllers=*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller',
      '--concurrent-gc-syncs=20',
      // HorizontalPodAutoscalers act within seconds, not minutes: tests
      // scale up under load and back down (defaults 15 s, 5 min, 5 min, 30 s).
      '--horizontal-pod-autoscaler-sync-period=5s',
      '--horizontal-pod-autoscaler-downscale-stabilization=20s',
      '--horizontal-pod-autoscaler-cpu-initialization-period=10s',
      '--horizontal-pod-autoscaler-initial-readiness-delay=5s',
    ]);
    const scheduler = this.spawn(bin, 'kube-scheduler', [...common, `--secure-port=${schedPort}`]);
    const kwok = this.spawn(bin, 'kwok', [
      `--kubeconfig=${this.kubeconfigPath}`,
      `--config=${w('kwok.yaml')}`,
      '--manage-all-nodes=false',
      '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
      '--disregard-status-with-annotation-selector=kwok.x-k8s.io/status=custom',
      `--server-address=127.0.0.1:${kwokPort}`,
      '--node-lease-duration-seconds=40',
      '--enable-crds=',
    ]);
    await Promise.all([
      this.waitFor(kcm, async () => (await get({ url: `https://127.0.0.1:${kcmPort}/healthz` })).status === 200),
      this.waitFor(scheduler, async () => (await get({ url: `https://127.0.0.1:${schedPort}/healthz` })).status === 200),
      this.waitFor(kwok, async () => (await get({ url: `http://127.0.0.1:${kwokPort}/healthz` })).status === 200),
    ]);

    if (this.options.realNode) {
      this.realNode = await startRealNode({
        repoRoot,
        workDir: this.workDir,
        kubeconfig: this.kubeconfigPath,
        caCert: pki.caCert,
        claimedGpus: this.options.realNodeClaimsGpus,
        spawn: (b, name, args) => this.spawn(b, name, args),
      });
      this.log(`real node ${REAL_NODE_NAME}: pods run as processes; qdrant/qdrant images run the ${this.realNode.qdrant}`);
    }
    await this.bootstrapObjects(repoRoot);
    if (this.realNode) await this.serveInClusterApi();
    if (this.realNode) {
      await startMetricsServer({
        bin: this.realNode.binDir,
        workDir: this.workDir,
        kubeconfig: this.kubeconfigPath,
        pki,
        apply: obj => this.apply(obj),
        spawn: (b, name, args) => this.spawn(b, name, args),
        waitFor: (p, ready) => this.waitFor(p, ready),
      });
    }
    if (this.options.simulatedNodes ?? !this.options.realNode) {
      this.simulatedQdrant = await new SimulatedQdrant(this.kubeconfigPath, [REAL_NODE_NAME]).start();
      this.log(`simulated Qdrant for pods on simulated nodes at ${this.simulatedQdrant.serviceUrlTemplate}`);
    }
    this.log(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)}s at ${this.server} (kubeconfig ${this.kubeconfigPath})`);
  }

  /**
   * Stops one component and starts it again with the same flags and port
   * (e.g. the API server, to test clients through an outage), then waits
   * until the API answers again.
   */
  async restart(name: string): Promise<void> {
    const p = this.processes.find(x => x.name === name);
    if (!p) throw new Error(`no component ${name}`);
    await p.stop();
    p.start();
    await this.until(`${name} back`, async () => {
      try {
        return (await this.request('GET', '/readyz')).status === 200;
      } catch {
        return false;
      }
    });
  }

  private spawn(bin: string, name: string, args: string[]): ManagedProcess {
    const p = new ManagedProcess(name, path.join(bin, name), args, path.join(this.workDir, 'logs', `${name}.log`));
    p.start();
    this.processes.push(p);
    return p;
  }

  private async waitFor(p: ManagedProcess, ready: () => Promise<boolean>) {
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 120_000);
    for (;;) {
      p.assertRunning();
      try {
        if (await ready()) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw new Error(`${p.name} did not become ready; last log lines:\n${p.tail()}`);
      }
      await sleep(200);
    }
  }

  kubeconfig(): string {
    return yaml.dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'local',
          cluster: {
            server: this.server,
            'certificate-authority-data': fs.readFileSync(this.pki!.caCert).toString('base64'),
          },
        },
      ],
      users: [{ name: 'admin', user: { token: this.pki!.adminToken } }],
      contexts: [{ name: 'local', context: { cluster: 'local', user: 'admin', namespace: 'default' } }],
      'current-context': 'local',
    });
  }

  /**
   * In-cluster access for pods on the real node, as a kubelet's cluster
   * gives it: the `kubernetes` Service (10.96.0.1:443, in the serving
   * certificate) gets the pod relay as its endpoint, so kube-proxy sends
   * pods' in-cluster requests through it to the loopback-only API server;
   * the node agent projects service-account tokens and the
   * kube-root-ca.crt ConfigMap carries the CA. The API server's own
   * endpoint reconciler is off (it would advertise 127.0.0.1).
   */
  private async serveInClusterApi(): Promise<void> {
    const port = await this.podRelayPort();
    const labels = { 'kubernetes.io/service-name': 'kubernetes' };
    await this.apply({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        // Mirrored by hand below; the mirroring controller keeps out.
        labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
      },
      subsets: [{ addresses: [{ ip: NODE_NETWORK.gateway }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
    });
    await this.apply({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { ...labels, 'endpointslice.kubernetes.io/managed-by': 'local-cluster.cv-platform' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: [NODE_NETWORK.gateway], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    });
  }

  /**
   * Starts the pod relay once; its port on the bridge's gateway. The API
   * server listens on 127.0.0.1 only, so a TCP relay on the gateway address
   * (which pods reach, as they reach the S3 test server) passes connections
   * through to it, TLS and all; the serving certificate names that address
   * too. The relay ends with the cluster.
   */
  private async podRelayPort(): Promise<number> {
    if (!this.realNode) throw new Error('the pod relay needs a real node (realNode: true)');
    const upstream = new URL(this.server);
    if (!this.podRelay) {
      const sockets = new Set<net.Socket>();
      const relay = net.createServer(client => {
        const api = net.connect(Number(upstream.port), '127.0.0.1');
        client.pipe(api).pipe(client);
        const end = () => {
          client.destroy();
          api.destroy();
          sockets.delete(client);
          sockets.delete(api);
        };
        sockets.add(client).add(api);
        client.on('error', end).on('close', end);
        api.on('error', end).on('close', end);
      });
      // Watches keep their connections open: closing the relay ends them.
      this.podRelaySockets = sockets;
      await new Promise<void>((resolve, reject) => {
        relay.once('error', reject);
        relay.listen(0, NODE_NETWORK.gateway, () => resolve());
      });
      this.podRelay = relay;
    }
    return (this.podRelay.address() as net.AddressInfo).port;
  }

  /** Authenticated JSON requests as the cluster admin. */
  get api(): ApiRequester {
    return (this.requester ??= new ApiRequester(
      this.server,
      fs.readFileSync(this.pki!.caCert, 'utf8'),
      this.pki!.adminToken,
    ));
  }

  request(method: string, urlPath: string, body?: unknown, contentType?: string) {
    return this.api.request(method, urlPath, body, contentType);
  }

  apply(obj: any) {
    return this.api.apply(obj);
  }

  private async bootstrapObjects(repoRoot: string) {
    for (const name of ['kwok-volume', 'standard', 'gp2']) {
      await this.apply({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name,
          annotations:
            name === 'standard' ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {},
        },
        provisioner: 'kwok.x-k8s.io/volume',
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
        // As EBS gp2/gp3 and most cloud classes; kwok-volume stays fixed-size.
        allowVolumeExpansion: name !== 'kwok-volume',
      });
    }
    const simulated = this.options.simulatedNodes ?? !this.options.realNode;
    const nodes = [
      ...(simulated ? FAKE_NODES : []),
      ...Array.from({ length: this.options.extraCpuNodes ?? 0 }, (_, i) => ({
        name: `kwok-cpu-x${i}`,
        zone: i % 2 ? 'zone-b' : 'zone-a',
        cpu: '64',
        memory: '256Gi',
      })),
    ];
    for (const node of nodes) await this.apply(fakeNodeManifest(node));
    await this.installCrds(this.options.crdDir ?? path.join(repoRoot, 'deploy', 'crds'));
    await this.until('fake nodes Ready', async () => {
      const res = await this.request('GET', '/api/v1/nodes');
      const ready = (res.body.items ?? []).filter((n: any) =>
        (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === nodes.length + (this.realNode ? 1 : 0);
    });
    await this.until('default ServiceAccount', async () =>
      (await this.request('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status === 200,
    );
  }

  /** Removes the real node's host state: iptables rules, network, mounts; then frees the machine's lock. */
  private cleanUpRealNode() {
    if (this.realNode) {
      cleanUpProxyRules(this.realNode.proxyBin);
      unmountUnder(this.realNode.workDir);
    }
    tearDownHostNetwork();
    this.releaseHostLock?.();
    this.releaseHostLock = undefined;
  }

  /** What the real node left on the host; empty after stop(). */
  static realNodeLeftovers(): string[] {
    return hostNetworkLeftovers();
  }

  async installCrds(dir: string) {
    if (!fs.existsSync(dir)) return;
    for (const file of fs.readdirSync(dir).filter(f => /\.ya?ml$/.test(f)).sort()) {
      for (const doc of yaml.loadAll(fs.readFileSync(path.join(dir, file), 'utf8'))) {
        const crd = doc as any;
        if (crd?.kind === 'CustomResourceDefinition') await this.installCrd(crd);
      }
    }
  }

  /** Applies a CRD and waits until its kind is served. */
  async installCrd(crd: any) {
    await this.apply(crd);
    await this.until(`CRD ${crd.metadata.name} established`, async () => {
      const r = await this.request(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
      );
      return (r.body.status?.conditions ?? []).some(
        (c: any) => c.type === 'Established' && c.status === 'True',
      );
    });
  }

  async until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const p of this.processes) p.assertRunning();
      if (await check()) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(200);
    }
  }

  /** Stops every component (newest first) and removes the work dir. */
  /**
   * The environment a process using this cluster needs: its kubeconfig and,
   * with simulated nodes, where the embedded operator of a portal (and the
   * operator's tests) reach the simulated Qdrant.
   */
  env(): Record<string, string> {
    const env: Record<string, string> = { KUBECONFIG: this.kubeconfigPath, CV_TEST_KUBECONFIG: this.kubeconfigPath };
    if (this.simulatedQdrant) {
      env.CV_QDRANT_URL_TEMPLATE = this.simulatedQdrant.serviceUrlTemplate;
      env.CV_QDRANT_PEER_URL_TEMPLATE = this.simulatedQdrant.peerUrlTemplate;
      env.APP_CONFIG_inferencePlatform_operator_qdrantUrlTemplate = this.simulatedQdrant.serviceUrlTemplate;
      env.APP_CONFIG_inferencePlatform_operator_qdrantPeerUrlTemplate = this.simulatedQdrant.peerUrlTemplate;
    }
    return env;
  }

  /** Operator options that reach the simulated Qdrant (none without simulated nodes). */
  qdrantUrlTemplates(): { qdrantUrlTemplate?: string; qdrantPeerUrlTemplate?: string } {
    const q = this.simulatedQdrant;
    return q ? { qdrantUrlTemplate: q.serviceUrlTemplate, qdrantPeerUrlTemplate: q.peerUrlTemplate } : {};
  }

  async stop(): Promise<void> {
    await this.simulatedQdrant?.stop();
    for (const p of [...this.processes].reverse()) {
      // The node agent terminates its pods first (up to 10 s grace each, in parallel).
      await p.stop(p.name === 'node-agent' ? 40_000 : 10_000);
    }
    // After the pods: an operator pod leaving still talks to the API server.
    if (this.podRelay) {
      const relay = this.podRelay;
      this.podRelay = undefined;
      const closed = new Promise(resolve => relay.close(resolve));
      for (const socket of this.podRelaySockets) socket.destroy();
      await closed;
    }
    if (this.releaseHostLock) this.cleanUpRealNode();
    this.removeExitHook?.();
    if (!this.options.keepWorkDir && !this.options.workDir) {
      fs.rmSync(this.workDir, { recursive: true, force: true });
    }
  }
}
