import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/**
 * Runs `src/main.ts` under tsx's loader as a separate process, like
 * `npm start`, and exposes its JSON log lines.
 */
export class ServiceProcess {
  readonly logs: LogLine[] = [];
  stderr = '';
  private child?: ChildProcess;
  private waiters: Array<{
    match: (l: LogLine) => boolean;
    resolve: (l: LogLine) => void;
  }> = [];
  private exited?: Promise<number | null>;

  constructor(private readonly env: Record<string, string>) {}

  start(): void {
    // `node --import tsx` rather than the tsx CLI: one process, so signals
    // (SIGHUP reload, SIGTERM) reach the service itself.
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', path.resolve(__dirname, '..', 'main.ts')],
      {
        cwd: path.resolve(__dirname, '..', '..'),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          HOST: '127.0.0.1',
          PORT: '0',
          ...this.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child.stderr!.on('data', d => (this.stderr += d));
    readline.createInterface({ input: this.child.stdout! }).on('line', line => {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      this.logs.push(parsed);
      this.waiters = this.waiters.filter(w => {
        if (!w.match(parsed)) return true;
        w.resolve(parsed);
        return false;
      });
    });
    const child = this.child;
    this.exited = new Promise(resolve =>
      child.once('exit', code => resolve(code)),
    );
  }

  /** Resolves with the first log line (past or future) matching `match`. */
  waitForLog(match: (l: LogLine) => boolean): Promise<LogLine> {
    const seen = this.logs.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise(resolve => this.waiters.push({ match, resolve }));
  }

  signal(sig: NodeJS.Signals): void {
    this.child?.kill(sig);
  }

  waitForExit(): Promise<number | null> {
    return this.exited ?? Promise.resolve(null);
  }

  async stop(): Promise<void> {
    if (
      this.child &&
      this.child.exitCode === null &&
      this.child.signalCode === null
    ) {
      this.child.kill('SIGKILL');
      await this.waitForExit();
    }
  }
}
