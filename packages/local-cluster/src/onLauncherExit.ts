import fs from 'node:fs';

/** The parent of a process, from /proc (Linux), or undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * Calls `onGone` once when the processes that launched this one go away: its
 * parent, or its parent's parent. `npx tsx cli.ts` runs this file three
 * launchers deep (npm, a shell, tsx); a process manager's SIGTERM reaches npm
 * alone, whose shell dies without passing it on, and tsx, orphaned, keeps
 * its child running: a control plane nobody can stop but by PID. Linux
 * offers PR_SET_PDEATHSIG for this; node does not, so the chain is polled.
 * Elsewhere (no /proc) it does nothing.
 */
export function onLauncherExit(onGone: () => void, intervalMs = 1000): () => void {
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  if (grandparent === undefined) return () => {};
  const timer = setInterval(() => {
    if (process.ppid !== parent || parentOf(parent) !== grandparent) {
      clearInterval(timer);
      onGone();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
