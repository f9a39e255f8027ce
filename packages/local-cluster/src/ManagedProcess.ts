import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';

/**
 * One control-plane component as a child process whose output goes to a log
 * file. An unexpected exit is remembered so that readiness waits fail loudly
 * with the component's last log lines instead of timing out silently.
 */
export class ManagedProcess {
  private child?: ChildProcess;
  private exited?: { code: number | null; signal: NodeJS.Signals | null };
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    this.exited = undefined;
    this.stopping = false;
    const out = fs.openSync(this.logFile, 'a');
    this.child = spawn(this.command, this.args, {
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        GOMAXPROCS: process.env.GOMAXPROCS ?? '2',
        // A CPU profile of kube-apiserver under load showed a fifth of its
        // time in garbage collection. This cluster is disposable and the
        // machine has memory to spare, so collect less often (the soft
        // limit keeps a runaway heap in check): 200 platforms converge
        // about 25 % sooner.
        GOGC: process.env.GOGC ?? '400',
        GOMEMLIMIT: process.env.GOMEMLIMIT ?? '4GiB',
      },
    });
    fs.closeSync(out);
    this.child.on('exit', (code, signal) => {
      this.exited = { code, signal };
      if (!this.stopping) {
        process.stderr.write(
          `[local-cluster] ${this.name} exited unexpectedly (code ${code}, signal ${signal})\n${this.tail()}\n`,
        );
      }
    });
  }

  /** Throws with the last log lines when the process is gone. */
  assertRunning(): void {
    if (this.exited) {
      throw new Error(
        `${this.name} exited (code ${this.exited.code}, signal ${this.exited.signal}); last log lines:\n${this.tail()}`,
      );
    }
  }

  tail(lines = 30): string {
    try {
      const text = fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n');
      return text.slice(-lines).map(l => `  ${this.name}| ${l}`).join('\n');
    } catch {
      return `  ${this.name}| (no log)`;
    }
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || this.exited) return;
    const done = new Promise<void>(resolve => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await done;
    clearTimeout(timer);
  }

  /** Synchronous last resort, for process exit hooks. */
  kill(): void {
    if (this.child?.pid && !this.exited) {
      this.stopping = true;
      this.child.kill('SIGKILL');
    }
  }

  isAlive(): boolean {
    const pid = this.child?.pid;
    if (!pid || this.exited) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
