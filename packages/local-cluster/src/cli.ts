#!/usr/bin/env -S npx tsx
/* eslint-disable no-console */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { LocalCluster } from './LocalCluster';
import { onLauncherExit } from './onLauncherExit';

const usage = `usage:
  local-cluster start [--real-node] [--kubeconfig-out FILE]   run until interrupted
  local-cluster run [--real-node] -- COMMAND [ARGS...]          run COMMAND with KUBECONFIG set, then stop
  local-cluster build                                           only build the binaries

  --real-node   add node local-node whose pods run for real as local processes
                (instead of KWOK's simulated nodes); needs root`;

async function main(argv: string[]) {
  const [cmd, ...rest] = argv;
  if (cmd === 'build') {
    const { ensureBinaries } = await import('./LocalCluster');
    console.log(ensureBinaries());
    return 0;
  }
  if (cmd !== 'start' && cmd !== 'run') {
    console.error(usage);
    return 2;
  }
  const sep0 = rest.indexOf('--');
  const flags = sep0 >= 0 ? rest.slice(0, sep0) : rest;
  const realNode = flags.includes('--real-node');
  const cluster = await LocalCluster.start({ realNode });
  const env = { ...process.env, ...cluster.env() };
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= cluster.stop());
  if (cmd === 'start') {
    const outIdx = rest.indexOf('--kubeconfig-out');
    if (outIdx >= 0 && rest[outIdx + 1]) {
      fs.writeFileSync(rest[outIdx + 1], cluster.kubeconfig(), { mode: 0o600 });
    }
    for (const [k, v] of Object.entries(cluster.env())) console.log(`${k}=${v}`);
    await new Promise<void>(resolve => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
      // A SIGTERM meant for `npx tsx cli.ts start` may stop only its launchers.
      onLauncherExit(() => {
        console.error('[local-cluster] the process that started it is gone: stopping');
        resolve();
      });
    });
    await stop();
    return 0;
  }
  const sep = rest.indexOf('--');
  const command = sep >= 0 ? rest.slice(sep + 1) : rest;
  if (command.length === 0) {
    await stop();
    console.error(usage);
    return 2;
  }
  // Its own process group, so that a signal reaches everything it started
  // (a shell's background jobs and foreground children alike), as Ctrl-C would.
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'inherit', 'inherit'], env, detached: true });
  const forward = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  onLauncherExit(() => forward('SIGTERM'));
  const code = await new Promise<number>(resolve =>
    child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))),
  );
  await stop();
  return code;
}

main(process.argv.slice(2)).then(
  code => process.exit(code),
  err => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
