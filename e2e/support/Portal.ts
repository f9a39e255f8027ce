/* eslint-disable no-console */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './freePort';
import { waitFor } from './waitFor';

export const repoRoot = path.resolve(__dirname, '..', '..');

/** Builds the app bundle the backend serves (rspack caches make repeats quick). */
export function buildApp() {
  if (
    process.env.E2E_SKIP_APP_BUILD === '1' &&
    fs.existsSync(path.join(repoRoot, 'packages/app/dist/index.html'))
  ) {
    console.log('e2e: reusing packages/app/dist (E2E_SKIP_APP_BUILD=1)');
    return;
  }
  console.log('e2e: building the app bundle ...');
  const result = spawnSync('npx', ['backstage-cli', 'package', 'build'], {
    cwd: path.join(repoRoot, 'packages/app'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`app build failed (exit ${result.status})`);
}

/**
 * The Backstage backend on a free 127.0.0.1 port, serving the built app
 * (app-backend injects this config into it) and talking to `kubeconfig`.
 * Runs in its own process group so stop() also ends the CLI's children.
 */
export class Portal {
  private exited = false;
  private logTail: string[] = [];

  private constructor(
    readonly baseUrl: string,
    private readonly child: ChildProcess,
    private readonly workDir: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.logTail.push(...chunk.toString('utf8').split('\n'));
      if (this.logTail.length > 200)
        this.logTail.splice(0, this.logTail.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', () => (this.exited = true));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(options: {
    kubeconfig: string;
    logFile?: string;
    /** Also wait for the embedded operator to have listed the cluster. Default true. */
    waitForOperator?: boolean;
    /** Catalog entities (YAML documents) to serve instead of the repository's. */
    catalogYaml?: string;
    /** Catalog files to serve beside catalogYaml (absolute paths), e.g. the repository's catalog-info.yaml. */
    catalogFiles?: string[];
    /** More lines of app-config (top-level keys not set here). */
    extraConfig?: string[];
    /** More environment for the backend: the cluster's (LocalCluster.env()), e.g. where its simulated Qdrant answers. */
    env?: Record<string, string>;
    /** Another Backstage app's root (its packages/backend and app-config.yaml). Default: this repository. */
    appRoot?: string;
  }): Promise<Portal> {
    const appRoot = options.appRoot ?? repoRoot;
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-e2e-portal-'));
    const configFile = path.join(workDir, 'app-config.e2e.yaml');
    const catalogFile = path.join(workDir, 'catalog.yaml');
    if (options.catalogYaml) fs.writeFileSync(catalogFile, options.catalogYaml);
    fs.writeFileSync(
      configFile,
      [
        'app:',
        `  baseUrl: ${baseUrl}`,
        'backend:',
        `  baseUrl: ${baseUrl}`,
        '  listen:',
        '    host: 127.0.0.1',
        `    port: ${port}`,
        '  cors:',
        `    origin: ${baseUrl}`,
        // Config arrays replace, not merge: these are the only locations then.
        ...(options.catalogYaml
          ? [
              'catalog:',
              '  locations:',
              '    - type: file',
              `      target: ${catalogFile}`,
              ...(options.catalogFiles ?? []).flatMap(f => [
                '    - type: file',
                `      target: ${f}`,
              ]),
            ]
          : []),
        ...(options.extraConfig ?? []),
        '',
      ].join('\n'),
    );
    const child = spawn(
      'npx',
      [
        'backstage-cli',
        'package',
        'start',
        '--config',
        path.join(appRoot, 'app-config.yaml'),
        '--config',
        configFile,
      ],
      {
        cwd: path.join(appRoot, 'packages/backend'),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        env: {
          ...process.env,
          ...options.env,
          KUBECONFIG: options.kubeconfig,
          NODE_ENV: 'development',
        },
      },
    );
    if (options.logFile) {
      const log = fs.createWriteStream(options.logFile);
      child.stdout?.pipe(log);
      child.stderr?.pipe(log);
    }
    const portal = new Portal(baseUrl, child, workDir);
    try {
      await portal.waitUntilReady(options.waitForOperator ?? true);
    } catch (e) {
      await portal.stop();
      throw e;
    }
    return portal;
  }

  private assertRunning = () => {
    if (this.exited) {
      throw new Error(
        `the backend exited; last log lines:\n${this.logTail
          .slice(-40)
          .join('\n')}`,
      );
    }
  };

  private async waitUntilReady(operator: boolean) {
    await waitFor(
      operator
        ? 'the backend to serve the app and a synced operator'
        : 'the backend to serve the app',
      async () => {
        const health = await fetch(
          `${this.baseUrl}/api/inference-platform/health`,
        );
        if (!health.ok) return false;
        const body = await health.json();
        if (operator && !body.operator?.synced) return false;
        const index = await fetch(`${this.baseUrl}/`);
        return index.ok && (await index.text()).includes('<title>');
      },
      { timeoutMs: 240_000, intervalMs: 500, alive: this.assertRunning },
    );
  }

  /** A Backstage token of the guest user, as the browser gets it. */
  async guestToken(): Promise<string> {
    const res = await fetch(`${this.baseUrl}/api/auth/guest/refresh`, {
      headers: { 'X-Requested-With': 'XMLHttpRequest' },
    });
    if (!res.ok)
      throw new Error(
        `guest sign-in failed: HTTP ${res.status} ${await res.text()}`,
      );
    const body = await res.json();
    return body.backstageIdentity.token;
  }

  async stop() {
    if (!this.exited && this.child.pid) {
      try {
        process.kill(-this.child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const deadline = Date.now() + 20_000;
      while (!this.exited && Date.now() < deadline)
        await new Promise(r => setTimeout(r, 200));
      if (!this.exited) {
        try {
          process.kill(-this.child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    fs.rmSync(this.workDir, { recursive: true, force: true });
  }
}
