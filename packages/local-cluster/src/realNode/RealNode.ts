import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ManagedProcess } from '../ManagedProcess';
import { runBuildScript } from '../runBuildScript';
import { freePort } from '../freePort';
import { imageMap } from './imageMap';
import { NODE_NETWORK } from './hostNetwork';

export const REAL_NODE_NAME = 'local-node';

/** Builds (or reuses from the cache) the node agent and kube-proxy; returns their directory. */
export function ensureNodeBinaries(repoRoot: string): string {
  return runBuildScript(repoRoot, 'tools/node-agent/build.sh', 'the real node');
}

export interface RealNodeProcesses {
  agent: ManagedProcess;
  proxy: ManagedProcess;
  kubeletPort: number;
  /** What `qdrant/qdrant` images run on this node. */
  qdrant: string;
  workDir: string;
  proxyBin: string;
  /** Where the node's programs (agent, kube-proxy, metrics-server) were built. */
  binDir: string;
}

/**
 * Starts the real node: the node agent (registers Node `local-node`, runs its
 * pods as processes, serves logs/port-forward and the cluster DNS on the
 * bridge address) and kube-proxy in iptables mode (Service ClusterIPs for
 * pods and for the host).
 */
export async function startRealNode(opts: {
  repoRoot: string;
  workDir: string;
  kubeconfig: string;
  caCert: string;
  spawn: (bin: string, name: string, args: string[]) => ManagedProcess;
  /** GPUs the node claims to have (it has none): for what must happen when CUDA is asked for and not usable. */
  claimedGpus?: { count: number; product: string };
}): Promise<RealNodeProcesses> {
  const bin = ensureNodeBinaries(opts.repoRoot);
  const n = NODE_NETWORK;
  const workDir = path.join(opts.workDir, 'node');
  fs.mkdirSync(workDir, { recursive: true });
  const map = imageMap(opts.repoRoot, workDir);
  const mapFile = path.join(workDir, 'image-map.json');
  fs.writeFileSync(mapFile, JSON.stringify({ images: map.images }, null, 2));
  const [kubeletPort, proxyMetrics, proxyHealth] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
  ]);
  const agent = opts.spawn(bin, 'node-agent', [
    `--kubeconfig=${opts.kubeconfig}`,
    `--node-name=${REAL_NODE_NAME}`,
    // The node's address is the host's side of the bridge: the API server
    // refuses to proxy (stats, /proxy) to a loopback node address.
    `--listen=${n.gateway}:${kubeletPort}`,
    `--client-ca=${opts.caCert}`,
    `--work-dir=${workDir}`,
    `--image-map=${mapFile}`,
    `--bridge=${n.bridge}`,
    `--pod-cidr=${n.podCidr}`,
    `--service-cidr=${n.serviceRange}`,
    `--gateway=${n.gateway}`,
    `--labels=topology.kubernetes.io/zone=zone-a${opts.claimedGpus ? `,nvidia.com/gpu.product=${opts.claimedGpus.product}` : ''}`,
    ...(opts.claimedGpus ? [`--extended-resources=nvidia.com/gpu=${opts.claimedGpus.count}`] : []),
  ]);
  const proxy = opts.spawn(bin, 'kube-proxy', [
    `--kubeconfig=${opts.kubeconfig}`,
    `--hostname-override=${REAL_NODE_NAME}`,
    '--proxy-mode=iptables',
    `--cluster-cidr=${n.podRange}`,
    // Hairpin traffic (a pod reaching itself through its Service) needs SNAT
    // without br_netfilter; the host's sysctls stay untouched.
    '--masquerade-all',
    '--conntrack-max-per-core=0',
    '--conntrack-tcp-timeout-established=0',
    '--conntrack-tcp-timeout-close-wait=0',
    '--iptables-localhost-nodeports=false',
    `--nodeport-addresses=${n.gateway}/32`,
    `--metrics-bind-address=127.0.0.1:${proxyMetrics}`,
    `--healthz-bind-address=127.0.0.1:${proxyHealth}`,
  ]);
  return {
    agent,
    proxy,
    kubeletPort,
    qdrant: map.qdrant,
    workDir,
    proxyBin: path.join(bin, 'kube-proxy'),
    binDir: bin,
  };
}

/** kube-proxy leaves its chains behind when stopped; its own cleanup mode removes them. */
export function cleanUpProxyRules(proxyBin: string): void {
  spawnSync(proxyBin, ['--cleanup', '--proxy-mode=iptables'], {
    stdio: 'ignore',
  });
}

/** Unmounts whatever is still mounted under dir (a killed agent's Memory emptyDirs). */
export function unmountUnder(dir: string): void {
  const mounts = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map(l => l.split(' ')[4])
    .filter((m): m is string => !!m && m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
}
