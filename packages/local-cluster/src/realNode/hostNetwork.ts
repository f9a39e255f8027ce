import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/**
 * The host side of the real node's network. The harness owns exactly these
 * names and ranges and nothing else: one bridge, pod namespaces named cvp-*,
 * host veth ends named cvh*, and one iptables chain; the pod and Service
 * ranges are blackholed on the host before anything starts, so a packet to an
 * address no rule claims is dropped here instead of following the default
 * route off the machine.
 */
export const NODE_NETWORK = {
  bridge: 'cvbr0',
  /** Blackholed on the host as a whole; the bridge holds one /24 of it. */
  podRange: '10.244.0.0/16',
  podCidr: '10.244.0.0/24',
  gateway: '10.244.0.1',
  serviceRange: '10.96.0.0/16',
  forwardChain: 'CV-NODE-FORWARD',
  netnsPrefix: 'cvp-',
  vethPrefix: 'cvh',
} as const;

/** The network namespace the node agent gives a pod (tools/node-agent/network.go). */
export function podNetnsName(podUid: string): string {
  return (
    NODE_NETWORK.netnsPrefix +
    createHash('sha256').update(podUid).digest('hex').slice(0, 10)
  );
}

/** The PIDs of a pod's processes on the real node, with their command lines. */
export function podProcesses(
  podUid: string,
): Array<{ pid: number; cmdline: string }> {
  const out =
    spawnSync('ip', ['netns', 'pids', podNetnsName(podUid)], {
      encoding: 'utf8',
    }).stdout ?? '';
  return out
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .map(pid => {
      let cmdline = '';
      try {
        cmdline = fs
          .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
          .split('\0')
          .join(' ')
          .trim();
      } catch {
        // exited meanwhile
      }
      return { pid, cmdline };
    });
}

const LOCK_DIR = '/run/cv-platform-real-node.lock';

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function tryRun(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/**
 * Fails with a clear message when this machine cannot host real pods (no
 * root, no iproute2/iptables, no network namespaces): a run that cannot
 * create them must say so, never fall back to simulating.
 */
export function assertCanHostRealPods(): void {
  const missing: string[] = [];
  if (process.getuid?.() !== 0)
    missing.push('root (network namespaces, mounts and iptables need it)');
  for (const tool of ['ip', 'iptables', 'iptables-restore', 'nsenter']) {
    if (!tryRun('sh', ['-c', `command -v ${tool}`]))
      missing.push(`the ${tool} command`);
  }
  if (missing.length === 0) {
    const probe = `cvprobe-${process.pid}`;
    const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
    if (made.status !== 0) {
      missing.push(`network namespaces (ip netns add: ${made.stderr.trim()})`);
    } else {
      tryRun('ip', ['netns', 'del', probe]);
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `this machine cannot run real pods; it lacks: ${missing.join('; ')}`,
    );
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One real node per machine (it owns the bridge, the ranges and iptables
 * chains): waits for another run's node to stop, taking over a lock whose
 * holder died.
 */
export async function acquireHostLock(timeoutMs: number): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      fs.writeFileSync(`${LOCK_DIR}/pid`, String(process.pid));
      return () => fs.rmSync(LOCK_DIR, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder = 0;
      try {
        holder = Number(fs.readFileSync(`${LOCK_DIR}/pid`, 'utf8'));
      } catch {
        // being written
      }
      if (holder && !pidAlive(holder)) {
        fs.rmSync(LOCK_DIR, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `another real node (pid ${holder}) has held ${LOCK_DIR} for ${
            timeoutMs / 1000
          }s`,
        );
      }
      await new Promise(r => setTimeout(r, 1000));
    }
  }
}

/** Blackhole routes first, then the bridge, forwarding on it only, and the forward guard. */
export function setUpHostNetwork(): void {
  const n = NODE_NETWORK;
  tearDownHostNetwork();
  for (const range of [n.podRange, n.serviceRange])
    run('ip', ['route', 'add', 'blackhole', range, 'metric', '4000']);
  run('ip', ['link', 'add', n.bridge, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${n.gateway}/24`, 'dev', n.bridge]);
  run('ip', ['link', 'set', n.bridge, 'up']);
  // Forwarding for packets that arrive on the bridge only (pod -> Service ->
  // pod); the host's other interfaces keep their setting.
  fs.writeFileSync(`/proc/sys/net/ipv4/conf/${n.bridge}/forwarding`, '1');
  // The host reaches ClusterIPs through kube-proxy's DNAT, which only runs
  // once a route exists: the Service range leads onto the bridge (ahead of
  // its blackhole), so an address no rule claims dies there unanswered.
  run('ip', [
    'route',
    'add',
    n.serviceRange,
    'dev',
    n.bridge,
    'src',
    n.gateway,
    'metric',
    '10',
  ]);
  run('iptables', ['-w', '-N', n.forwardChain]);
  run('iptables', [
    '-w',
    '-A',
    n.forwardChain,
    '-i',
    n.bridge,
    '-o',
    n.bridge,
    '-j',
    'ACCEPT',
  ]);
  run('iptables', ['-w', '-A', n.forwardChain, '-i', n.bridge, '-j', 'DROP']);
  run('iptables', ['-w', '-A', n.forwardChain, '-o', n.bridge, '-j', 'DROP']);
  run('iptables', ['-w', '-I', 'FORWARD', '1', '-j', n.forwardChain]);
}

function links(prefix: string): string[] {
  const out =
    spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout ?? '';
  return out
    .split('\n')
    .map(l => l.split(':')[1]?.trim().split('@')[0])
    .filter((name): name is string => !!name && name.startsWith(prefix));
}

function namespaces(): string[] {
  const out =
    spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  return out
    .split('\n')
    .map(l => l.split(' ')[0])
    .filter(name => name.startsWith(NODE_NETWORK.netnsPrefix));
}

/** Removes everything setUpHostNetwork and the node agent create; idempotent. */
export function tearDownHostNetwork(): void {
  const n = NODE_NETWORK;
  for (const ns of namespaces()) {
    // A pod's processes outlive a killed agent; they are found by namespace.
    const pids = (
      spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout ?? ''
    )
      .split('\n')
      .map(Number)
      .filter(pid => pid > 1 && pid !== process.pid);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    tryRun('ip', ['netns', 'del', ns]);
  }
  for (const link of links(n.vethPrefix)) tryRun('ip', ['link', 'del', link]);
  while (tryRun('iptables', ['-w', '-D', 'FORWARD', '-j', n.forwardChain])) {
    // a crashed run may have inserted it twice
  }
  tryRun('iptables', ['-w', '-F', n.forwardChain]);
  tryRun('iptables', ['-w', '-X', n.forwardChain]);
  // kube-proxy --cleanup leaves the firewall chain it shares with kubelets.
  for (const hook of ['INPUT', 'OUTPUT']) {
    while (tryRun('iptables', ['-w', '-D', hook, '-j', 'KUBE-FIREWALL'])) {
      // once per insertion
    }
  }
  tryRun('iptables', ['-w', '-F', 'KUBE-FIREWALL']);
  tryRun('iptables', ['-w', '-X', 'KUBE-FIREWALL']);
  tryRun('ip', ['link', 'del', n.bridge]);
  for (const range of [n.podRange, n.serviceRange]) {
    while (tryRun('ip', ['route', 'del', 'blackhole', range])) {
      // a crashed run may have left one
    }
  }
}

/** What of the node's network is left on the host (empty after teardown). */
export function hostNetworkLeftovers(): string[] {
  const n = NODE_NETWORK;
  const left: string[] = [];
  left.push(...namespaces().map(ns => `netns ${ns}`));
  left.push(...links(n.vethPrefix).map(l => `link ${l}`));
  if (links(n.bridge).length) left.push(`bridge ${n.bridge}`);
  const routes =
    spawnSync('ip', ['route', 'show', 'type', 'blackhole'], {
      encoding: 'utf8',
    }).stdout ?? '';
  for (const range of [n.podRange, n.serviceRange])
    if (routes.includes(range)) left.push(`route blackhole ${range}`);
  const rules =
    spawnSync('iptables-save', [], { encoding: 'utf8' }).stdout ?? '';
  for (const line of rules.split('\n')) {
    if (/^:(KUBE-|CV-NODE)/.test(line) || /-j (KUBE-|CV-NODE)/.test(line))
      left.push(`iptables ${line}`);
  }
  const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  for (const line of mounts.split('\n')) {
    const mountPoint = line.split(' ')[4];
    if (
      mountPoint?.includes('/cv-local-cluster-') ||
      mountPoint?.includes('/run/netns/cvp-')
    )
      left.push(`mount ${mountPoint}`);
  }
  return left;
}
