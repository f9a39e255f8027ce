/* eslint-disable no-console */
/**
 * The suite as an adopter installs it, outside this repository: builds and
 * packs every publishable package, creates an app from the create-app
 * template of this repository's Backstage release (the new frontend system),
 * installs the tarballs with npm, adds the backend lines the READMEs give
 * (the frontend plugin is found by the app's feature discovery, no code),
 * builds the app and starts it on a local control plane, with the
 * standalone operator run from the packed operator's `bin` reconciling.
 * Then, in headless Chromium and over HTTP: the discovered nav item and page
 * list the platforms, one created while it is open, until Ready, the entity card and tab show on a
 * Component that names it, and the backend's routes and permission metadata
 * answer.
 *
 *   npx tsx e2e/packedInstall.e2e.ts
 *
 * Prints `N passed, M failed` last and exits non-zero on failure. Logs and a
 * screenshot go to test-artifacts/. The scratch app (about 2 GB of
 * node_modules) is removed at the end; CV_KEEP_SCRATCH_APP=1 keeps it.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestNamespace, LocalCluster } from '@cv-platform/local-cluster';
import { launchChromium } from './support/launchChromium';
import { freePort } from './support/freePort';
import { Portal, repoRoot } from './support/Portal';
import {
  componentNamingPlatform,
  markPage,
  rowSelector,
  samePage,
  signInAsGuest,
} from './support/portalPage';
import { runScenario, TestRun } from './support/TestRun';
import { waitFor } from './support/waitFor';

/** create-app of the Backstage release in backstage.json; checked below. */
const CREATE_APP_VERSION = '0.9.2';

/** Published packages in dependency order (each packs after what it depends on builds). */
const PUBLISHED = [
  'packages/inference-platform-api',
  'plugins/inference-platform-common',
  'operator',
  'plugins/inference-platform-node',
  'plugins/inference-platform-backend',
  'plugins/catalog-backend-module-inference-platform',
  'plugins/scaffolder-backend-module-inference-platform',
  'plugins/inference-platform',
];

const artifacts = path.join(repoRoot, 'test-artifacts');
const NAME = 'packed';
const COMPONENT = 'image-search-packed';

function run(cmd: string, args: string[], cwd: string, quiet = false) {
  const started = Date.now();
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} in ${cwd} failed (exit ${
        r.status
      }):\n${`${r.stdout}\n${r.stderr}`.slice(-4000)}`,
    );
  }
  if (!quiet)
    console.log(
      `e2e: ${cmd} ${args.slice(0, 3).join(' ')} in ${
        path.relative(os.tmpdir(), cwd) || cwd
      } (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  return r.stdout;
}

/** Builds each published package as its prepack would ship it and packs it. */
function packAll(into: string): Map<string, string> {
  // Declarations first: package builds bundle them from dist-types.
  run('npx', ['tsc'], repoRoot);
  const tarballs = new Map<string, string>();
  for (const dir of PUBLISHED) {
    const cwd = path.join(repoRoot, dir);
    run('npm', ['run', 'build'], cwd);
    const out = run('npm', ['pack', '--json', '--pack-destination', into], cwd);
    const [{ name, filename }] = JSON.parse(out.slice(out.indexOf('[')));
    tarballs.set(name, path.join(into, filename));
  }
  return tarballs;
}

/** Renders create-app's default (new frontend system) template into dir, as `npx @backstage/create-app` does. */
async function createApp(dir: string) {
  const tool = path.join(
    os.homedir(),
    '.cache',
    'cv-platform',
    `create-app-${CREATE_APP_VERSION}`,
  );
  const pkg = path.join(tool, 'node_modules', '@backstage', 'create-app');
  if (!fs.existsSync(path.join(pkg, 'package.json'))) {
    fs.mkdirSync(tool, { recursive: true });
    fs.writeFileSync(path.join(tool, 'package.json'), '{"private":true}');
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        `@backstage/create-app@${CREATE_APP_VERSION}`,
      ],
      tool,
    );
  }
  const release = require(path.join(
    pkg,
    'dist',
    'package.json.cjs.js',
  )).version;
  const ours = JSON.parse(
    fs.readFileSync(path.join(repoRoot, 'backstage.json'), 'utf8'),
  ).version;
  if (release !== ours) {
    throw new Error(
      `create-app ${CREATE_APP_VERSION} is Backstage ${release}, this repository ${ours}: update CREATE_APP_VERSION`,
    );
  }
  // The CLI itself refuses Node 20 and a machine without yarn before it
  // renders anything; its templating step is the same without those checks.
  const { templatingTask } = require(path.join(
    pkg,
    'dist',
    'lib',
    'tasks.cjs.js',
  ));
  await templatingTask(path.join(pkg, 'templates', 'default-app'), dir, {
    name: 'scratch',
    defaultBranch: 'main',
  });
}

const readJson = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8'));
const writeJson = (f: string, v: unknown) =>
  fs.writeFileSync(f, `${JSON.stringify(v, null, 2)}\n`);

/** What an adopter does after create-app: add the packages, the backend lines from the README. */
function install(app: string, tarballs: Map<string, string>) {
  const spec = (name: string) => `file:${tarballs.get(name)}`;
  const root = readJson(path.join(app, 'package.json'));
  // Not on a registry: the tarballs stand in for it, for the packages'
  // dependencies on each other too.
  root.overrides = Object.fromEntries(
    [...tarballs.keys()].map(n => [n, spec(n)]),
  );
  writeJson(path.join(app, 'package.json'), root);

  const appPkg = readJson(path.join(app, 'packages/app/package.json'));
  appPkg.dependencies['@cv-platform/plugin-inference-platform'] = spec(
    '@cv-platform/plugin-inference-platform',
  );
  writeJson(path.join(app, 'packages/app/package.json'), appPkg);

  const backendPkg = readJson(path.join(app, 'packages/backend/package.json'));
  for (const n of [
    '@cv-platform/plugin-inference-platform-backend',
    '@cv-platform/plugin-catalog-backend-module-inference-platform',
    '@cv-platform/plugin-scaffolder-backend-module-inference-platform',
    '@cv-platform/operator',
  ]) {
    backendPkg.dependencies[n] = spec(n);
  }
  // yarn's link: protocol; npm links workspaces by name.
  backendPkg.dependencies.app = '*';
  // The 1.55 template pins backend-defaults 0.18, whose HTTP router lacks
  // what the signals plugin it installs (0.3.21) calls at startup; a fresh
  // app only starts once it is bumped (`backstage-cli versions:bump` does
  // the same), and the plugins here are built against 0.19.
  backendPkg.dependencies['@backstage/backend-defaults'] = '^0.19.0';
  writeJson(path.join(app, 'packages/backend/package.json'), backendPkg);

  // The lines of the backend plugin's and the modules' READMEs.
  const index = path.join(app, 'packages/backend/src/index.ts');
  const lines = [
    "backend.add(import('@cv-platform/plugin-inference-platform-backend'));",
    "backend.add(import('@cv-platform/plugin-catalog-backend-module-inference-platform'));",
    "backend.add(import('@cv-platform/plugin-scaffolder-backend-module-inference-platform'));",
  ];
  for (const [readme, line] of [
    ['plugins/inference-platform-backend/README.md', lines[0]],
    ['plugins/catalog-backend-module-inference-platform/README.md', lines[1]],
    [
      'plugins/scaffolder-backend-module-inference-platform/README.md',
      lines[2],
    ],
  ]) {
    if (!fs.readFileSync(path.join(repoRoot, readme), 'utf8').includes(line))
      throw new Error(`${readme} no longer says ${line}`);
  }
  const source = fs.readFileSync(index, 'utf8');
  fs.writeFileSync(
    index,
    source.replace(
      'backend.start();',
      `${lines.join('\n')}\n\nbackend.start();`,
    ),
  );

  run('npm', ['install', '--no-audit', '--no-fund', '--legacy-peer-deps'], app);
}

/** The standalone operator from the installed package's bin, against the cluster. */
async function startOperator(
  app: string,
  cluster: LocalCluster,
  logFile: string,
) {
  const bin = path.join(
    app,
    'node_modules',
    '.bin',
    'inference-platform-operator',
  );
  const help = spawnSync(bin, ['--help'], { encoding: 'utf8' });
  if (help.status !== 0 || !help.stdout.includes('--kubeconfig')) {
    throw new Error(
      `${bin} --help: exit ${help.status}\n${help.stdout}${help.stderr}`,
    );
  }
  const templates = cluster.qdrantUrlTemplates();
  const child = spawn(
    bin,
    [
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--no-leader-elect',
      '--metrics-port',
      String(await freePort()),
      ...(templates.qdrantUrlTemplate
        ? ['--qdrant-url-template', templates.qdrantUrlTemplate]
        : []),
      ...(templates.qdrantPeerUrlTemplate
        ? ['--qdrant-peer-url-template', templates.qdrantPeerUrlTemplate]
        : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const log = fs.createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return child;
}

async function main() {
  const run_ = new TestRun();
  fs.mkdirSync(artifacts, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cv-packed-'));
  const app = path.join(work, 'scratch');
  let cluster: LocalCluster | undefined;
  let operator: ChildProcess | undefined;
  let portal: Portal | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    let tarballs = new Map<string, string>();
    await run_.check(
      'every published package builds and packs with dist entry points and a built bin',
      async () => {
        fs.mkdirSync(path.join(work, 'tarballs'));
        tarballs = packAll(path.join(work, 'tarballs'));
        for (const [name, file] of tarballs) {
          const manifest = JSON.parse(
            run('tar', ['-xzOf', file, 'package/package.json'], work, true),
          );
          for (const field of ['main', 'types']) {
            if (!String(manifest[field]).startsWith('dist/'))
              throw new Error(`${name}: ${field} is ${manifest[field]}`);
          }
          const files = run('tar', ['-tzf', file], work, true);
          if (!files.includes(`package/${manifest.main}`))
            throw new Error(`${name}: ${manifest.main} is not packed`);
          if (files.includes('package/src/'))
            throw new Error(`${name}: packs its sources`);
          if (manifest.bin) {
            for (const b of Object.values<string>(manifest.bin)) {
              if (!files.includes(`package/${b}`) || b.endsWith('.ts'))
                throw new Error(`${name}: bin ${b}`);
            }
          }
        }
      },
    );
    await run_.check(
      `an app from create-app ${CREATE_APP_VERSION} installs the tarballs and builds`,
      async () => {
        await createApp(app);
        install(app, tarballs);
        run(
          'npx',
          ['backstage-cli', 'package', 'build'],
          path.join(app, 'packages/app'),
        );
      },
    );

    console.log('e2e: starting the local control plane ...');
    cluster = await LocalCluster.start({
      log: m => console.log(`[local-cluster] ${m}`),
    });
    const namespace = await createTestNamespace(cluster.api, 'packed');
    const key = `${namespace}/${NAME}`;
    const platform = {
      apiVersion: 'cv.platform.tech/v1beta1',
      kind: 'InferencePlatform',
      metadata: { name: NAME, namespace },
      spec: {
        qdrant: { version: 'v1.14.1', replicas: 1, storage: { size: '1Gi' } },
        inference: {
          image: 'cv-platform/inference-service:packed',
          replicas: 1,
          model: { url: 's3://models/resnet50-v2-7.onnx' },
        },
      },
    };
    const created = await cluster.request(
      'POST',
      `/apis/cv.platform.tech/v1beta1/namespaces/${namespace}/inferenceplatforms`,
      platform,
    );
    if (created.status !== 201)
      throw new Error(`create ${key}: ${JSON.stringify(created.body)}`);

    await run_.check('the operator runs from the packed bin', async () => {
      operator = await startOperator(
        app,
        cluster!,
        path.join(artifacts, 'packedInstall-operator.log'),
      );
    });

    const catalogYaml = componentNamingPlatform(COMPONENT, key, 'guests');
    await run_.check(
      'the app starts with the plugins (embedded operator off, as published)',
      async () => {
        portal = await Portal.start({
          appRoot: app,
          kubeconfig: cluster!.kubeconfigPath,
          logFile: path.join(artifacts, 'packedInstall-backend.log'),
          catalogYaml,
          extraConfig: [
            'inferencePlatform:',
            '  kubernetes:',
            `    kubeconfigPath: ${cluster!.kubeconfigPath}`,
          ],
        });
        console.log(
          `e2e: scratch app at ${portal.baseUrl} (backend pid ${portal.pid})`,
        );
      },
    );

    await run_.check(
      'the backend routes and the permission metadata answer',
      async () => {
        const token = await portal!.guestToken();
        const get = async (p: string) => {
          const res = await fetch(`${portal!.baseUrl}${p}`, {
            headers: { Authorization: `Bearer ${token}` },
          });
          if (!res.ok)
            throw new Error(`${p}: HTTP ${res.status} ${await res.text()}`);
          return res.json();
        };
        await waitFor(`${key} in /platforms`, async () => {
          const body = await get('/api/inference-platform/platforms');
          return JSON.stringify(body).includes(`"${NAME}"`);
        });
        const { permissions } = await get(
          '/api/inference-platform/.well-known/backstage/permissions/metadata',
        );
        const names = permissions.map((p: { name: string }) => p.name).sort();
        for (const n of [
          'inference-platform.create',
          'inference-platform.delete',
          'inference-platform.read',
          'inference-platform.update',
        ]) {
          if (!names.includes(n))
            throw new Error(
              `permission metadata lacks ${n}: ${names.join(', ')}`,
            );
        }
        await waitFor(
          'the platform Resource in the catalog',
          async () => {
            const res = await fetch(
              `${
                portal!.baseUrl
              }/api/catalog/entities/by-name/resource/default/${namespace}.${NAME}`,
              {
                headers: { Authorization: `Bearer ${token}` },
              },
            );
            return res.ok;
          },
          { timeoutMs: 120_000 },
        );
      },
    );

    browser = await launchChromium();
    const page = await browser.context.newPage();
    run_.onFirstFailure = async name => {
      await page.screenshot({
        path: path.join(artifacts, 'packedInstall-failure.png'),
        fullPage: true,
      });
      console.log(
        `    (screenshot of "${name}" in test-artifacts/packedInstall-failure.png)`,
      );
    };
    await run_.check(
      'the discovered nav item opens the page, which lists the platform Ready',
      async () => {
        await page.goto(portal!.baseUrl);
        await signInAsGuest(page, 'nav');
        const nav = page.getByRole('link', { name: 'Inference platforms' });
        await nav.first().waitFor({ timeout: 120_000 });
        await nav.first().click();
        await page.waitForURL(/\/inference-platforms$/);
        const row = page.locator(rowSelector(key));
        await row.waitFor({ timeout: 120_000 });
        await row
          .getByText('Ready', { exact: true })
          .waitFor({ timeout: 180_000 });
      },
    );
    await run_.check(
      'a platform created while the page is open appears and turns Ready without a reload',
      async () => {
        await markPage(page);
        const second = {
          ...platform,
          metadata: { name: `${NAME}-2`, namespace },
        };
        const r = await cluster!.request(
          'POST',
          `/apis/cv.platform.tech/v1beta1/namespaces/${namespace}/inferenceplatforms`,
          second,
        );
        if (r.status !== 201)
          throw new Error(
            `create ${namespace}/${NAME}-2: ${JSON.stringify(r.body)}`,
          );
        const row = page.locator(rowSelector(`${namespace}/${NAME}-2`));
        await row
          .getByText('Ready', { exact: true })
          .waitFor({ timeout: 180_000 });
        if (!(await samePage(page))) throw new Error('the page reloaded');
      },
    );
    await run_.check(
      'the entity card and the entity tab show on a Component that names the platform',
      async () => {
        await page.goto(
          `${portal!.baseUrl}/catalog/default/component/${COMPONENT}`,
        );
        await page.getByText(key).first().waitFor({ timeout: 120_000 });
        const tab = page
          .getByRole('tab', { name: 'Inference platform' })
          .or(
            page.getByRole('link', { name: 'Inference platform', exact: true }),
          );
        await tab.first().click();
        await page.waitForURL(/\/inference-platform$/);
        await page.getByText(NAME).first().waitFor({ timeout: 60_000 });
      },
    );
  } catch (e) {
    run_.fail('setup', e);
  } finally {
    await browser?.close().catch(() => undefined);
    await portal?.stop().catch(() => undefined);
    if (operator?.pid && operator.exitCode === null) operator.kill('SIGTERM');
    await cluster?.stop().catch(() => undefined);
    if (process.env.CV_KEEP_SCRATCH_APP === '1')
      console.log(`e2e: kept ${app}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
  run_.finish();
}

runScenario(main);
