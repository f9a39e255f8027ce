/* eslint-disable no-console */
/**
 * Real-pods benchmark (not a test). On a private local cluster with a real
 * node, beside the same work on KWOK's simulated nodes (the baseline):
 *
 * - CR apply -> Ready for the seed sample scaled to one machine (1 Qdrant
 *   peer, 2 inference servers, the MobileNetV2 model from an S3-compatible
 *   server), p50 / min / max over --runs runs;
 * - memory per real platform: the resident memory of its pods' processes
 *   (the kubelet stats summary the node agent serves);
 * - the node agent's own CPU and resident memory at idle and with 20 real
 *   pods (busybox sleepers), beside KWOK's for the same 20 simulated pods.
 *
 *   npx tsx e2e/perf/realPods.ts [--runs 5]
 */
import fs from 'node:fs';
import os from 'node:os';
import { toV1beta1 } from '@cv-platform/inference-platform-api';
import {
  ApiRequester,
  LocalCluster,
  NODE_NETWORK,
  S3TestServer,
  eventually,
} from '@cv-platform/local-cluster';
import { Operator, loadKubeConfig } from '@cv-platform/operator';
import { ensureMobileNetV2Onnx } from '../../inference-service/src/__testUtils__/nsfwjsMobileNetV2';
import {
  modelStoreSecret,
  scaledSeed,
} from '../../inference-service/src/__testUtils__/scaledSeed';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 5;
const ticks = 100;

function procUsage(pid: number): { cpuSeconds: number; rssMiB: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuSeconds = (Number(f[11]) + Number(f[12])) / ticks;
  const rss = /VmRSS:\s+(\d+) kB/.exec(
    fs.readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return { cpuSeconds, rssMiB: rss ? Number(rss[1]) / 1024 : 0 };
}

/** CPU (% of one core) and RSS of a process over a window. */
async function measure(pid: number, seconds: number) {
  const a = procUsage(pid);
  await new Promise(r => setTimeout(r, seconds * 1000));
  const b = procUsage(pid);
  return {
    cpuPercent: ((b.cpuSeconds - a.cpuSeconds) / seconds) * 100,
    rssMiB: b.rssMiB,
  };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[
    Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))
  ];

/** A namespace whose default ServiceAccount exists (pods can be created). */
async function readyNamespace(api: ApiRequester, ns: string) {
  await api.apply({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  await eventually('ServiceAccount', async () => {
    const res = await api.request(
      'GET',
      `/api/v1/namespaces/${ns}/serviceaccounts/default`,
    );
    return res.status === 200;
  });
}

async function sleepers(
  api: ApiRequester,
  ns: string,
  n: number,
  nodeName?: string,
) {
  await readyNamespace(api, ns);
  for (let i = 0; i < n; i++) {
    await api.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `sleeper-${i}`,
        namespace: ns,
        labels: { bench: 'sleeper' },
      },
      spec: {
        ...(nodeName ? { nodeName } : {}),
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'c',
            image: 'busybox',
            command: ['sleep', '3600'],
            readinessProbe: { exec: { command: ['true'] }, periodSeconds: 10 },
          },
        ],
      },
    });
  }
  await eventually(
    `${n} sleepers ready`,
    async () => {
      const items = (
        await api.request(
          'GET',
          `/api/v1/namespaces/${ns}/pods?labelSelector=bench%3Dsleeper`,
        )
      ).body.items as any[];
      return (
        items.filter(p =>
          (p.status?.conditions ?? []).some(
            (c: any) => c.type === 'Ready' && c.status === 'True',
          ),
        ).length === n
      );
    },
    180_000,
    500,
  );
}

async function applyToReady(
  cluster: LocalCluster,
  s3: S3TestServer | undefined,
  runsWanted: number,
  label: string,
) {
  const api = cluster.api;
  const op = new Operator({
    kubeConfig: loadKubeConfig({ kubeconfigPath: cluster.kubeconfigPath }),
    workers: 2,
    // From the host: real peers through the API server's proxy; simulated ones from the cluster's simulated Qdrant.
    ...(cluster.simulatedQdrant
      ? cluster.qdrantUrlTemplates()
      : { qdrantAccess: 'apiServerProxy' as const }),
  });
  await op.start();
  const times: number[] = [];
  const memory: number[] = [];
  for (let r = 0; r < runsWanted; r++) {
    const ns = `bench-${label}-${r}`;
    await readyNamespace(api, ns);
    if (s3) await api.apply(modelStoreSecret(ns, s3));
    const p = scaledSeed('seed', ns, {
      qdrantReplicas: 1,
      inferenceReplicas: 2,
      ...(s3 ? { modelUrl: 's3://models/mobilenet-v2.onnx', s3 } : {}),
    });
    const t0 = Date.now();
    await api.request(
      'POST',
      `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms`,
      toV1beta1(p),
    );
    await eventually(
      'Ready',
      async () => {
        const x = (
          await api.request(
            'GET',
            `/apis/cv.platform.tech/v1beta1/namespaces/${ns}/inferenceplatforms/seed`,
          )
        ).body;
        return x.status?.phase === 'Ready';
      },
      600_000,
      100,
    );
    times.push((Date.now() - t0) / 1000);
    if (s3) {
      const summary = (
        await api.request('GET', '/api/v1/nodes/local-node/proxy/stats/summary')
      ).body;
      const bytes = (summary.pods ?? [])
        .filter((x: any) => x.podRef.namespace === ns)
        .reduce(
          (sum: number, x: any) => sum + (x.memory?.workingSetBytes ?? 0),
          0,
        );
      memory.push(bytes / 2 ** 20);
    }
    await api.request('DELETE', `/api/v1/namespaces/${ns}`);
  }
  await op.stop();
  return { times, memory };
}

async function main() {
  const model = await ensureMobileNetV2Onnx();
  console.log(
    `# real pods bench: ${runs} runs, machine ${os.cpus().length} CPUs`,
  );

  // Baseline: the same platform on KWOK's simulated nodes.
  const sim = await LocalCluster.start();
  const simRun = await applyToReady(sim, undefined, runs, 'sim');
  const kwok = sim.processes.find(p => p.name === 'kwok')!;
  const kwokIdle = await measure(kwok.pid!, 20);
  await sleepers(sim.api, 'sleepers', 20, 'kwok-cpu-a1');
  const kwok20 = await measure(kwok.pid!, 30);
  await sim.stop();

  const real = await LocalCluster.start({ realNode: true });
  const s3 = new S3TestServer();
  await s3.start(NODE_NETWORK.gateway);
  await s3.putObjects('models', {
    'mobilenet-v2.onnx': fs.readFileSync(model),
  });
  const agent = real.processes.find(p => p.name === 'node-agent')!;
  const agentIdle = await measure(agent.pid!, 20);
  const realRun = await applyToReady(real, s3, runs, 'real');
  await sleepers(real.api, 'sleepers', 20);
  const agent20 = await measure(agent.pid!, 30);
  await real.stop();
  await s3.stop();

  const row = (name: string, xs: number[]) =>
    `| ${name} | ${pct(xs, 50).toFixed(1)} s | ${Math.min(...xs).toFixed(
      1,
    )} s | ${Math.max(...xs).toFixed(1)} s |`;
  console.log(
    '\n| apply -> Ready (scaled seed sample) | p50 | min | max |\n| --- | --- | --- | --- |',
  );
  console.log(row('real pods', realRun.times));
  console.log(row('simulated nodes (baseline)', simRun.times));
  console.log(
    `\nmemory per real platform (its pods' resident memory): p50 ${pct(
      realRun.memory,
      50,
    ).toFixed(0)} MiB (min ${Math.min(...realRun.memory).toFixed(
      0,
    )}, max ${Math.max(...realRun.memory).toFixed(0)})`,
  );
  console.log(
    '\n| process | idle CPU | idle RSS | 20 pods CPU | 20 pods RSS |\n| --- | --- | --- | --- | --- |',
  );
  const u = (m: { cpuPercent: number; rssMiB: number }) =>
    `${m.cpuPercent.toFixed(1)} % | ${m.rssMiB.toFixed(0)} MiB`;
  console.log(
    `| node agent (20 real pods) | ${u(agentIdle)} | ${u(agent20)} |`,
  );
  console.log(
    `| KWOK (20 simulated pods, baseline) | ${u(kwokIdle)} | ${u(kwok20)} |`,
  );
}

main().then(
  () => process.exit(0),
  e => {
    console.error(e);
    process.exit(1);
  },
);
