/* eslint-disable no-console */
/**
 * Operator benchmark (not a test): against a private local control plane,
 * create N platforms at once and measure, per platform, CR creation -> all
 * children created and CR creation -> phase Ready; total convergence time;
 * API requests per platform; writes in steady state; operator heap.
 *
 * The operator runs as it is shipped: the standalone entrypoint bundled with
 * esbuild (as the image runs it), in its own process. This process only
 * creates platforms and watches what happens; the operator's requests,
 * writes, heap and CPU come from its /metrics. Beside it, two baselines with
 * no operator: the same objects in the operator's order (inference after
 * Qdrant is Ready), and all at once.
 *
 *   npm run bench -w @cv-platform/operator -- [N ...] [--no-baseline]   (default: 1 100 1000)
 *
 * BENCH_CPU_PROF=<dir> writes a CPU profile of the operator per run;
 * BENCH_STATUS_TRAILS=<file> every platform's status writes on its way to Ready.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, LocalCluster } from '@cv-platform/local-cluster';
import { sampleInferencePlatform, toV1beta1, withDefaults } from '@cv-platform/inference-platform-api';
import {
  inferenceConfigMap,
  inferenceDeployment,
  inferenceService,
  qdrantClientService,
  qdrantHeadlessService,
  qdrantStatefulSet,
} from '../src';
import { KubeClient } from '../src/kube/KubeClient';
import { loadKubeConfig } from '../src/kube/loadKubeConfig';
import { Resources, SharedInformer } from '../src/runtime/SharedInformers';
import { noopLogger } from '../src/logger';

// First pass: 2 Qdrant Services, StatefulSet, ConfigMap, inference Service
// (a PDB only with 2+ peers); the Deployment follows once Qdrant is Ready.
const FIRST_PASS_CHILDREN = 5;
// Longer than the standalone operator's 60 s Qdrant cluster-info TTL.
const STEADY_MS = 70_000;

function pct(xs: number[], p: number) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

// Where `build:bin` writes the bundle.
const BUNDLE = path.join(__dirname, '..', 'dist', 'inference-platform-operator.cjs');

/** The standalone operator as the image ships it: `npm run build:bin`, one esbuild bundle. */
function bundleOperator() {
  execFileSync('npm', ['run', '--silent', 'build:bin'], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
}

interface OperatorMetricsSample {
  requests: number;
  writes: number;
  heapBytes: number;
  rssBytes: number;
  queueDepth: number;
  reconciles: number;
  cpuSeconds: number;
  cpuSystemSeconds: number;
  statusWrites: number;
  childApplies: number;
}

/** Runs the bundled operator on one namespace; its numbers come from /metrics. */
async function startOperatorProcess(cluster: LocalCluster, ns: string) {
  const port = await freePort();
  const logFile = path.join(path.dirname(cluster.kubeconfigPath), `operator-${ns}.log`);
  const log = fs.openSync(logFile, 'w');
  // --expose-gc: /metrics then reports the heap after a full collection.
  const child: ChildProcess = spawn(
    process.execPath,
    [
     '--expose-gc',
     // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the operator, written when it stops.
     ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
     BUNDLE, '--kubeconfig', cluster.kubeconfigPath, '--namespace', ns, '--no-leader-elect', '--workers', '8', '--metrics-port', String(port),
     // KWOK's pods run no Qdrant: the operator asks the cluster's simulated one.
     '--qdrant-url-template', cluster.simulatedQdrant!.serviceUrlTemplate, '--qdrant-peer-url-template', cluster.simulatedQdrant!.peerUrlTemplate],
    { stdio: ['ignore', log, log] },
  );
  const exited = new Promise(r => child.once('exit', r));
  const sum = (text: string, name: string, filter = '') =>
    text
      .split('\n')
      .filter(l => l.startsWith(name) && (l[name.length] === ' ' || l[name.length] === '{') && l.includes(filter))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const metrics = async (): Promise<OperatorMetricsSample> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const requests = sum(text, 'rest_client_requests_total');
    const reads = sum(text, 'rest_client_requests_total', 'method="GET"') + sum(text, 'rest_client_requests_total', 'method="WATCH"');
    return {
      requests,
      writes: requests - reads,
      heapBytes: sum(text, 'nodejs_heap_size_used_bytes'),
      rssBytes: sum(text, 'process_resident_memory_bytes'),
      queueDepth: sum(text, 'workqueue_depth'),
      reconciles: sum(text, 'controller_runtime_reconcile_total'),
      cpuSeconds: sum(text, 'process_cpu_seconds_total'),
      cpuSystemSeconds: sum(text, 'process_cpu_system_seconds_total'),
      statusWrites: sum(text, 'inference_platform_operator_api_writes_total', 'verb="status"'),
      childApplies: sum(text, 'inference_platform_operator_api_writes_total', 'verb="apply"'),
    };
  };
  // Started = caches synced and workers running (the log says so).
  await cluster.until('operator started', async () => {
    if (child.exitCode !== null) throw new Error(`operator exited: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    return fs.readFileSync(logFile, 'utf8').includes('Operator started');
  });
  return {
    metrics,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.closeSync(log);
    },
  };
}

async function runOnce(cluster: LocalCluster, n: number) {
  const ns = await benchNamespace(cluster, 'bench', n);
  // Warm-up: the API server initialises a CRD's storage and CEL programs on first use.
  const warm = sampleInferencePlatform('warmup', ns);
  await cluster.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms?dryRun=All`, toV1beta1(warm));
  const operator = await startOperatorProcess(cluster, ns);
  const client = new KubeClient(loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }));
  const watch = (ref: (typeof Resources)[keyof typeof Resources]) =>
    new SharedInformer(client, ref, [ns], noopLogger, { labelSelector: 'cv.platform.tech/platform' });
  const observed = {
    platforms: new SharedInformer(client, Resources.inferencePlatforms, [ns], noopLogger),
    services: watch(Resources.services),
    statefulSets: watch(Resources.statefulSets),
    configMaps: watch(Resources.configMaps),
    deployments: watch(Resources.deployments),
  };
  const watching = new AbortController();
  for (const c of Object.values(observed)) void c.run(watching.signal);
  await Promise.all(Object.values(observed).map(c => c.waitForSync()));

  const created = new Map<string, number>();
  const children = new Map<string, Set<string>>();
  const childrenDone = new Map<string, number>();
  const deploymentAt = new Map<string, number>();
  const ready = new Map<string, number>();
  const onChild = (_t: string, o: any) => {
    const name = o.metadata.labels?.['cv.platform.tech/platform'];
    if (!name || name === 'warmup') return;
    if (o.kind === 'Deployment') {
      if (!deploymentAt.has(name)) deploymentAt.set(name, performance.now());
      return;
    }
    if (childrenDone.has(name)) return;
    const set = children.get(name) ?? new Set<string>();
    set.add(`${o.kind}/${o.metadata.name}`);
    children.set(name, set);
    if (set.size >= FIRST_PASS_CHILDREN) childrenDone.set(name, performance.now());
  };
  for (const c of ['services', 'statefulSets', 'configMaps', 'deployments'] as const) observed[c].on(onChild);
  // Every status a platform went through on its way to Ready: which writes one observed state cost.
  const statusTrail = new Map<string, { last?: any; steps: string[]; at: number[] }>();
  observed.platforms.on((_t, p) => {
    const name = p.metadata.name!;
    if (name === 'warmup' || ready.has(name)) return;
    const trail = statusTrail.get(name) ?? { steps: [], at: [] };
    statusTrail.set(name, trail);
    if (p.status && JSON.stringify(p.status) !== JSON.stringify(trail.last)) {
      trail.steps.push(describeStatusStep(trail.last, p.status));
      trail.at.push(performance.now());
      trail.last = p.status;
    }
    if (p.status?.phase === 'Ready') ready.set(name, performance.now());
  });

  // A running operator has warm connections and compiled code; a first
  // platform, not measured, gets it there (and is Ready before t0, so its
  // own rollout does not overlap the first measured platform).
  warm.spec.qdrant.replicas = 1;
  warm.spec.qdrant.storageClassName = 'standard';
  const w = await cluster.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(warm));
  if (w.status >= 300) throw new Error(JSON.stringify(w.body));
  await cluster.until('operator warmed up', async () => observed.platforms.get(ns, 'warmup')?.status?.phase === 'Ready');

  const before = await operator.metrics();
  const reqBefore = before.requests;
  const t0 = performance.now();
  // N=1 is one platform at a time, 20 times over, so its percentiles have samples.
  const rounds = n === 1 ? 20 : 1;
  const count = n * rounds;
  const names = Array.from({ length: count }, (_, i) => `p${i}`);
  const limit = limiter(16);
  const createRound = (round: string[]) =>
    Promise.all(
      round.map(name =>
        limit(async () => {
          const res = await cluster.request('POST', `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`, toV1beta1(benchPlatform(name, ns)));
          if (res.status >= 300) throw new Error(JSON.stringify(res.body));
          // Created = accepted by the API server (the operator can only react from then on).
          created.set(name, performance.now());
        }),
      ),
    );
  for (let r = 0; r < rounds - 1; r++) {
    const round = names.slice(r * n, (r + 1) * n);
    await createRound(round);
    await cluster.until('round Ready', async () => round.every(x => ready.has(x)));
  }
  await createRound(names.slice((rounds - 1) * n));
  const deadline = Date.now() + Math.max(180_000, n * 1500);
  let lastReport = Date.now();
  while (ready.size < count && Date.now() < deadline) {
    await new Promise(r => setTimeout(r, 100));
    if (Date.now() - lastReport > 5000) {
      lastReport = Date.now();
      const stsReady = observed.statefulSets.list(s => (s.status?.readyReplicas ?? 0) >= 1).length;
      const m = await operator.metrics().catch(() => undefined);
      console.error(
        `  ${((performance.now() - t0) / 1000).toFixed(0)}s: children ${childrenDone.size}/${n}, qdrant ready ${stsReady}, deployments ${deploymentAt.size}, Ready ${ready.size}, queue ${m?.queueDepth}, reconciles ${m?.reconciles}`,
      );
    }
  }
  // Per round: N=1's 20 rounds report the mean time of one.
  const total = (performance.now() - t0) / rounds;
  if (ready.size < count) {
    const notReady = observed.platforms
      .list(x => x.status?.phase !== 'Ready')
      .slice(0, 3)
      .map(x => `${x.metadata.name}: ${x.status?.phase} ${x.status?.message}`);
    console.error('  not converged:', notReady);
  }
  const converged = ready.size === count;
  const atReady = await operator.metrics();

  // Steady state: no changes, no writes, over longer than one Qdrant
  // cluster-info re-check (every Ready platform is looked at again each minute).
  await new Promise(r => setTimeout(r, 5000));
  const steadyFrom = await operator.metrics();
  const writesBefore = steadyFrom.writes;
  await new Promise(r => setTimeout(r, STEADY_MS));
  const after = await operator.metrics();
  const steadyWrites = after.writes - writesBefore;

  // The operator may finish before the POST response arrives: never below 0.
  const toChildren = names.filter(x => childrenDone.has(x)).map(x => Math.max(0, childrenDone.get(x)! - created.get(x)!));
  const toDeployment = names.filter(x => deploymentAt.has(x)).map(x => deploymentAt.get(x)! - created.get(x)!);
  const toReady = names.filter(x => ready.has(x)).map(x => ready.get(x)! - created.get(x)!);
  const result = {
    n,
    converged: `${ready.size}/${count}`,
    totalSeconds: +(total / 1000).toFixed(2),
    childrenP50ms: +pct(toChildren, 50).toFixed(1),
    childrenP99ms: +pct(toChildren, 99).toFixed(1),
    deploymentP99ms: +pct(toDeployment, 99).toFixed(1),
    readyP50ms: +pct(toReady, 50).toFixed(1),
    readyP99ms: +pct(toReady, 99).toFixed(1),
    apiRequestsPerPlatform: +((after.requests - reqBefore) / count).toFixed(1),
    // Of those: status writes and child applies (the rest are Events and reads).
    statusWritesPerPlatform: +((after.statusWrites - before.statusWrites) / count).toFixed(1),
    appliesPerPlatform: +((after.childApplies - before.childApplies) / count).toFixed(1),
    // The operator's own CPU (its process) from creation to Ready, like the requests above.
    cpuMsPerPlatform: +(((atReady.cpuSeconds - before.cpuSeconds) * 1000) / count).toFixed(1),
    // Of that, the kernel's share (sockets, timers, memory) as prom-client reads it.
    cpuSystemMsPerPlatform: +(((atReady.cpuSystemSeconds - before.cpuSystemSeconds) * 1000) / count).toFixed(1),
    cpuMsPerReconcile: +(((atReady.cpuSeconds - before.cpuSeconds) * 1000) / Math.max(1, atReady.reconciles - before.reconciles)).toFixed(2),
    reconcilesPerPlatform: +((atReady.reconciles - before.reconciles) / count).toFixed(1),
    // Then what keeping them costs: CPU per platform and minute of the steady state.
    steadyCpuMsPerPlatformMinute: +(((after.cpuSeconds - steadyFrom.cpuSeconds) * 1000 * 60_000) / STEADY_MS / count).toFixed(1),
    steadyStateWrites: steadyWrites,
    heapMb: +(after.heapBytes / 2 ** 20).toFixed(1),
    rssMb: +(after.rssBytes / 2 ** 20).toFixed(1),
  };
  // The most common ways to Ready, write by write.
  const ways = new Map<string, number>();
  for (const t of statusTrail.values()) ways.set(t.steps.join('\n      '), (ways.get(t.steps.join('\n      ')) ?? 0) + 1);
  if (process.env.BENCH_STATUS_TRAILS) fs.writeFileSync(process.env.BENCH_STATUS_TRAILS, JSON.stringify(Object.fromEntries([...statusTrail].map(([k, t]) => [k, t.steps.map((s, i) => `${s} (+${i ? ((t.at[i] - t.at[i - 1]) / 1000).toFixed(1) : 0} s)`)])), null, 1));
  for (const [way, k] of [...ways].sort((a, b) => b[1] - a[1]).slice(0, 2)) {
    console.error(`  ${k} of ${statusTrail.size} platforms reached Ready through ${way.split('\n').length} status writes:\n      ${way}`);
  }
  watching.abort();
  client.close();
  await operator.stop();
  await cluster.request('DELETE', `/api/v1/namespaces/${ns}`);
  return { result, converged };
}

/** One status write: the phase, the conditions not True, and what else changed. */
function describeStatusStep(before: any, after: any): string {
  const pending = (after.conditions ?? []).filter((c: any) => c.status !== 'True').map((c: any) => `${c.type}=${c.reason}`);
  const changed = Object.keys({ ...before, ...after }).filter(
    k => k !== 'conditions' && k !== 'phase' && k !== 'message' && JSON.stringify(before?.[k]) !== JSON.stringify(after[k]),
  );
  const said = [
    ...(before?.message !== after.message ? [`"${String(after.message).slice(0, 90)}"`] : []),
    ...(after.conditions ?? [])
      .filter((c: any) => (before?.conditions ?? []).some((b: any) => b.type === c.type && b.message !== c.message))
      .map((c: any) => `${c.type}: "${String(c.message).slice(0, 300)}"`),
  ]
    .map(x => ` ${x}`)
    .join('');
  return `${after.phase} [${pending.join(', ')}]${changed.length ? ` changed: ${changed.join(', ')}` : ''}${said}`;
}

/** A platform as the bench creates it: one peer, one server, small requests (the point is the control loop, not bin packing). */
function benchPlatform(name: string, ns: string) {
  const p = sampleInferencePlatform(name, ns);
  p.spec.qdrant.replicas = 1;
  p.spec.qdrant.storageClassName = 'standard';
  p.spec.inference.replicas = 1;
  p.spec.inference.resources = { requests: { cpu: '10m', memory: '32Mi' } };
  return p;
}

/** A fresh namespace, once its default ServiceAccount exists (pods need it). */
async function benchNamespace(cluster: LocalCluster, prefix: string, n: number): Promise<string> {
  const ns = `${prefix}-${n}-${Date.now().toString(36)}`;
  await cluster.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await cluster.until('default SA', async () =>
    (await cluster.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200,
  );
  return ns;
}

/** Runs jobs at most `max` at a time, like a burst of kubectl applies. */
function limiter(max: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>(r => waiting.push(r));
    active++;
    try {
      return await job();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** Applies children built by the operator's builders with no platform to own them. */
async function applyStandalone(cluster: LocalCluster, objs: any[]) {
  for (const obj of objs) {
    delete obj.metadata.ownerReferences;
    await cluster.apply(obj);
  }
}

/**
 * Baseline, side by side: the same children (built by the operator's own
 * builders) applied straight to the API server with no operator, Qdrant and
 * inference at once. What the simulated control plane itself needs to bring
 * N platforms' workloads to Ready on this machine.
 */
async function baseline(cluster: LocalCluster, n: number) {
  const ns = await benchNamespace(cluster, 'base', n);
  const t0 = performance.now();
  const limit = limiter(16);
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      limit(() => {
        const p = benchPlatform(`p${i}`, ns);
        const spec = withDefaults(p.spec);
        return applyStandalone(cluster, [qdrantHeadlessService(p), qdrantClientService(p), qdrantStatefulSet(p, spec), inferenceConfigMap(p, spec), inferenceDeployment(p, spec), inferenceService(p)]);
      }),
    ),
  );
  const readyCount = async () => {
    const [sts, dep] = await Promise.all([
      cluster.request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets`),
      cluster.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments`),
    ]);
    return Math.min(
      sts.body.items.filter((x: any) => (x.status?.readyReplicas ?? 0) >= 1).length,
      dep.body.items.filter((x: any) => (x.status?.readyReplicas ?? 0) >= 1).length,
    );
  };
  const deadline = Date.now() + Math.max(180_000, n * 1500);
  while ((await readyCount()) < n && Date.now() < deadline) await new Promise(r => setTimeout(r, 500));
  const seconds = (performance.now() - t0) / 1000;
  const converged = `${await readyCount().catch(() => 0)}/${n}`;
  await cluster.request('DELETE', `/api/v1/namespaces/${ns}`);
  return { converged, seconds };
}

/**
 * The baseline ordered like the operator: Qdrant's objects (and the
 * ConfigMap and inference Service) first, each platform's inference
 * Deployment only once its StatefulSet reports a ready peer, as the operator
 * must. A watch, not polling, tells when: the same work the operator does,
 * less its reconcile loop, status writes and Events.
 */
async function orderedBaseline(cluster: LocalCluster, n: number) {
  const ns = await benchNamespace(cluster, 'ordered', n);
  const client = new KubeClient(loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }));
  const statefulSets = new SharedInformer(client, Resources.statefulSets, [ns], noopLogger);
  const deployments = new SharedInformer(client, Resources.deployments, [ns], noopLogger);
  const watching = new AbortController();
  void statefulSets.run(watching.signal);
  void deployments.run(watching.signal);
  await Promise.all([statefulSets.waitForSync(), deployments.waitForSync()]);
  const platforms = new Map<string, ReturnType<typeof sampleInferencePlatform>>();
  const applied = new Set<string>();
  // Deployments have their own 16 lanes, as the operator's workers do not
  // wait for the rest of the burst to be applied.
  const deployLimit = limiter(16);
  const applyDeployment = (name: string) => {
    const p = platforms.get(name);
    if (!p || applied.has(name)) return;
    applied.add(name);
    void deployLimit(() => applyStandalone(cluster, [inferenceDeployment(p, withDefaults(p.spec))]));
  };
  statefulSets.on((_t, s) => {
    if ((s.status?.readyReplicas ?? 0) >= 1) applyDeployment(s.metadata.name.replace(/-qdrant$/, ''));
  });
  const t0 = performance.now();
  const limit = limiter(16);
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      limit(async () => {
        const p = benchPlatform(`p${i}`, ns);
        const spec = withDefaults(p.spec);
        platforms.set(p.metadata.name!, p);
        await applyStandalone(cluster, [qdrantHeadlessService(p), qdrantClientService(p), qdrantStatefulSet(p, spec), inferenceConfigMap(p, spec), inferenceService(p)]);
        // A StatefulSet that was ready before its platform was recorded.
        const sts = statefulSets.get(ns, `${p.metadata.name}-qdrant`);
        if ((sts?.status?.readyReplicas ?? 0) >= 1) applyDeployment(p.metadata.name!);
      }),
    ),
  );
  const readyCount = () => deployments.list(d => (d.status?.readyReplicas ?? 0) >= 1).length;
  const deadline = Date.now() + Math.max(180_000, n * 1500);
  while (readyCount() < n && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
  const seconds = (performance.now() - t0) / 1000;
  const converged = `${readyCount()}/${n}`;
  watching.abort();
  client.close();
  await cluster.request('DELETE', `/api/v1/namespaces/${ns}`);
  return { converged, seconds };
}

async function main() {
  const withBaseline = !process.argv.includes('--no-baseline');
  const ns = process.argv.slice(2).map(Number).filter(x => x > 0);
  const sizes = ns.length ? ns : [1, 100, 1000];
  // 2 pods per platform, 110 pods per node.
  const extraCpuNodes = Math.ceil((2 * Math.max(...sizes)) / 100);
  bundleOperator();
  const cluster = await LocalCluster.start({ log: m => console.error(m), extraCpuNodes });
  // Stopped early (Ctrl-C): take the control plane down with us.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => void cluster.stop().finally(() => process.exit(130)));
  }
  try {
    const rows = [];
    for (const n of sizes) {
      console.error(`bench: N=${n} ...`);
      const { result } = await runOnce(cluster, n);
      if (withBaseline) {
        console.error(`bench: ordered baseline N=${n} (same workloads, inference after Qdrant is Ready, no operator) ...`);
        const o = await orderedBaseline(cluster, n);
        console.error(`bench: all-at-once baseline N=${n} ...`);
        const b = await baseline(cluster, n);
        rows.push({
          ...result,
          orderedConverged: o.converged,
          orderedSeconds: +o.seconds.toFixed(2),
          vsOrdered: +(result.totalSeconds / o.seconds).toFixed(2),
          allAtOnceSeconds: +b.seconds.toFixed(2),
          vsAllAtOnce: +(result.totalSeconds / b.seconds).toFixed(2),
        });
      } else {
        rows.push(result);
      }
      console.table(rows);
    }
    console.log('\nchildren = first-pass children (Services, StatefulSet, ConfigMap); deployment = inference Deployment, created once Qdrant is Ready');
    console.log(`steadyStateWrites = API writes in ${STEADY_MS / 1000} s after convergence (one Qdrant re-check period and more)`);
    console.log('targets: p99 CR->children <= 100 ms at N=1; N=1000 converges <= 60 s; steady state 0 writes; heap <= 100 MB at N=1000');
    console.log(JSON.stringify(rows));
  } finally {
    await cluster.stop();
  }
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
