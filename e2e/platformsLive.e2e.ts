/* eslint-disable no-console */
/**
 * Real-browser end-to-end test of the live platform list: starts a local
 * control plane, the Backstage backend (serving the freshly built app) and
 * headless Debian Chromium; creates a platform through the REST API, watches
 * it appear, scales it with a Kubernetes merge patch (what `kubectl edit`
 * sends) and watches the row follow, all without a reload. The same portal
 * then shows the project's own docs (TechDocs, built with mkdocs on first
 * view) in the Docs tab of the repository's operator Component.
 *
 *   npx tsx e2e/platformsLive.e2e.ts
 *
 * Prints `N passed, M failed` last and exits non-zero on failure. Screenshots
 * and the backend log go to test-artifacts/.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Page } from 'playwright-core';
import {
  createTestNamespace,
  LocalCluster,
  S3TestServer,
} from '@cv-platform/local-cluster';
import { launchChromium } from './support/launchChromium';
import { buildApp, Portal, repoRoot } from './support/Portal';
import {
  componentNamingPlatform,
  firstInferenceReadiness,
  markPage,
  openComponentPlatformCard,
  rowSelector,
  samePage,
  signInAsGuest,
} from './support/portalPage';
import { runScenario, TestRun } from './support/TestRun';
import { waitFor } from './support/waitFor';

const artifacts = path.join(repoRoot, 'test-artifacts');
const NAME = 'live-e2e';
const COMPONENT = 'e2e-image-search';
/** The repository's Component whose Docs tab renders docs/ (catalog-info.yaml). */
const DOCS_COMPONENT = 'inference-platform-operator';

/** The bin directory of the cached mkdocs venv (installed on first use). */
function mkdocsBin(): string {
  const result = spawnSync('bash', ['scripts/ensure-mkdocs.sh'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (result.status !== 0)
    throw new Error(`scripts/ensure-mkdocs.sh failed (exit ${result.status})`);
  return result.stdout.trim().split('\n').pop()!;
}

async function readiness(
  page: Page,
  key: string,
  tier: 'qdrant' | 'inference',
) {
  const text = await page
    .locator(`${rowSelector(key)} [data-testid="${tier}-readiness"]`)
    .textContent({ timeout: 1000 });
  return text?.trim() ?? '';
}

async function main() {
  const run = new TestRun();
  fs.mkdirSync(artifacts, { recursive: true });
  fs.rmSync(path.join(artifacts, 'platformsLive-failure.png'), { force: true });
  let cluster: LocalCluster | undefined;
  let portal: Portal | undefined;
  const s3 = new S3TestServer();
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  // A fresh TechDocs publish directory: the docs are really built on first view.
  const techdocsDir = fs.mkdtempSync(
    path.join(os.tmpdir(), 'cv-e2e-techdocs-'),
  );
  try {
    buildApp();
    const mkdocs = mkdocsBin();
    console.log('e2e: starting the local control plane ...');
    cluster = await LocalCluster.start({
      log: m => console.log(`[local-cluster] ${m}`),
    });
    const namespace = await createTestNamespace(cluster.api, 'e2e');
    const key = `${namespace}/${NAME}`;
    console.log('e2e: starting the backend ...');
    portal = await Portal.start({
      kubeconfig: cluster.kubeconfigPath,
      logFile: path.join(artifacts, 'platformsLive-backend.log'),
      // A component that names the platform, for the entity card.
      catalogYaml: componentNamingPlatform(COMPONENT, key, 'group:default/e2e'),
      // The project's own entities, for its Docs tab.
      catalogFiles: [path.join(repoRoot, 'catalog-info.yaml')],
      extraConfig: [
        'techdocs:',
        '  publisher:',
        '    local:',
        `      publishDirectory: ${techdocsDir}`,
      ],
      env: { ...cluster.env(), PATH: `${mkdocs}:${process.env.PATH}` },
    });
    console.log(`e2e: portal at ${portal.baseUrl} (backend pid ${portal.pid})`);
    browser = await launchChromium();
    const page = await browser.context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', e => pageErrors.push(e.message));
    const consoleLog = fs.createWriteStream(
      path.join(artifacts, 'platformsLive-browser.log'),
    );
    page.on('console', m => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
    page.on('requestfailed', r =>
      consoleLog.write(
        `[requestfailed] ${r.url()} ${r.failure()?.errorText}\n`,
      ),
    );
    run.onFirstFailure = async () => {
      await page.screenshot({
        path: path.join(artifacts, 'platformsLive-failure.png'),
        fullPage: true,
      });
      console.log(
        `    screenshot: test-artifacts/platformsLive-failure.png, browser log: test-artifacts/platformsLive-browser.log`,
      );
    };
    let navigations = 0;
    page.on('framenavigated', frame => {
      if (frame === page.mainFrame()) navigations++;
    });
    const crPath = `/apis/cv.platform.tech/v1beta1/namespaces/${namespace}/inferenceplatforms/${NAME}`;
    let navigationsAfterLoad = 0;

    await run.check(
      'the list page signs in as guest and its feed goes live',
      async () => {
        await page.goto(`${portal!.baseUrl}/inference-platforms`);
        await signInAsGuest(page);
        await page
          .locator('[data-testid="connection-indicator"][data-state="live"]')
          .waitFor({ timeout: 120_000 });
        await page
          .getByText('No inference platforms yet')
          .waitFor({ timeout: 30_000 });
        await markPage(page);
        navigationsAfterLoad = navigations;
      },
    );

    await run.check(
      'a platform created through the REST API appears without a reload',
      async () => {
        const token = await portal!.guestToken();
        const res = await fetch(
          `${portal!.baseUrl}/api/inference-platform/platforms`,
          {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${token}`,
              'Content-Type': 'application/json',
            },
            body: JSON.stringify({
              namespace,
              name: NAME,
              spec: {
                qdrant: {
                  version: 'v1.9.0',
                  replicas: 1,
                  storage: { size: '1Gi' },
                },
                inference: {
                  image: 'cv-platform/inference-service:e2e',
                  model: {
                    url: 'https://models.example.com/resnet50-v2-7.onnx',
                  },
                  replicas: 1,
                },
              },
            }),
          },
        );
        if (res.status !== 201)
          throw new Error(`create answered ${res.status}: ${await res.text()}`);
        await page.locator(rowSelector(key)).waitFor({ timeout: 30_000 });
        if (!(await samePage(page))) throw new Error('the page was reloaded');
      },
    );

    await run.check(
      "the operator's progress reaches the row live (1/1 ready on both tiers)",
      async () => {
        await waitFor(
          'qdrant 1/1 and inference 1/1 in the row',
          async () =>
            (await readiness(page, key, 'qdrant')) === '1/1' &&
            (await readiness(page, key, 'inference')) === '1/1',
          { timeoutMs: 180_000 },
        );
      },
    );

    await run.check(
      'a Kubernetes merge patch of the replicas updates the row without a reload',
      async () => {
        const res = await cluster!.api.request(
          'PATCH',
          crPath,
          { spec: { qdrant: { replicas: 2 }, inference: { replicas: 3 } } },
          'application/merge-patch+json',
        );
        if (res.status !== 200)
          throw new Error(
            `patch answered ${res.status}: ${JSON.stringify(res.body)}`,
          );
        // The desired counts come from the spec: they change with the patch itself.
        await waitFor(
          'the new desired counts in the row',
          async () =>
            (await readiness(page, key, 'qdrant')).endsWith('/2') &&
            (await readiness(page, key, 'inference')).endsWith('/3'),
          { timeoutMs: 30_000 },
        );
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive-scaling.png'),
          fullPage: true,
        });
        // Then the operator scales the workloads and reports them ready.
        await waitFor(
          'qdrant 2/2 and inference 3/3 in the row',
          async () =>
            (await readiness(page, key, 'qdrant')) === '2/2' &&
            (await readiness(page, key, 'inference')) === '3/3',
          { timeoutMs: 180_000 },
        );
        if (!(await samePage(page)) || navigations !== navigationsAfterLoad) {
          throw new Error(
            `the page navigated (${navigations - navigationsAfterLoad} times)`,
          );
        }
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive.png'),
          fullPage: true,
        });
      },
    );

    await run.check(
      'the detail page shows conditions, pods and the Qdrant cluster',
      async () => {
        await page
          .locator(`${rowSelector(key)} a`)
          .first()
          .click();
        await page
          .getByText(`Inference platform in namespace ${namespace}`)
          .waitFor({ timeout: 30_000 });
        await page
          .locator('[data-testid="condition-Ready"]')
          .waitFor({ timeout: 30_000 });
        await waitFor(
          'five pod tiles',
          async () =>
            (await page.locator('[data-testid="pod-tile"]').count()) === 5,
          {
            timeoutMs: 60_000,
          },
        );
        await page.getByText('Qdrant cluster').first().waitFor();
        // Rollout state, volumes and the YAML of the platform, read live.
        await page
          .locator(`[data-testid="rollout-${NAME}-qdrant"]`)
          .getByText('Complete')
          .waitFor({ timeout: 30_000 });
        await page
          .locator(`[data-testid="volume-storage-${NAME}-qdrant-0"]`)
          .getByText('Bound')
          .waitFor({ timeout: 30_000 });
        await page
          .locator('[data-testid="yaml-text"]')
          .getByText(`name: ${NAME}`)
          .first()
          .waitFor({ timeout: 30_000 });
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive-detail.png'),
          fullPage: true,
        });
      },
    );

    await run.check(
      'the Backups card backs up now and restores that backup, live',
      async () => {
        // A collection of three points in the platform's simulated Qdrant,
        // and a backup target on a real S3 server.
        const qdrant = cluster!
          .env()
          .CV_QDRANT_URL_TEMPLATE.replace('{namespace}', namespace)
          .replace('{statefulSet}', `${NAME}-qdrant`);
        const put = async (p: string, body: unknown) => {
          const r = await fetch(`${qdrant}${p}`, {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          if (!r.ok) throw new Error(`PUT ${p}: ${r.status} ${await r.text()}`);
        };
        await put('/collections/images', {
          vectors: { size: 4, distance: 'Cosine' },
          shard_number: 2,
          replication_factor: 2,
        });
        await put('/collections/images/points?wait=true', {
          points: [1, 2, 3].map(id => ({
            id,
            vector: [id, 1, 0, 0],
            payload: { id },
          })),
        });
        await s3.start();
        await s3.putObjects('backups', {});
        await cluster!.apply({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'backup-store', namespace },
          stringData: {
            AWS_ACCESS_KEY_ID: s3.accessKeyId,
            AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
          },
        });
        const res = await cluster!.api.request(
          'PATCH',
          crPath,
          {
            spec: {
              backup: {
                schedule: '0 3 * * *',
                s3: {
                  bucket: 'backups',
                  endpoint: s3.endpoint,
                  region: 'us-east-1',
                  credentialsSecretRef: { name: 'backup-store' },
                },
              },
            },
          },
          'application/merge-patch+json',
        );
        if (res.status !== 200)
          throw new Error(
            `patch answered ${res.status}: ${JSON.stringify(res.body)}`,
          );
        const backUp = page.getByRole('button', { name: 'Back up now' });
        await backUp.waitFor({ timeout: 30_000 });
        await backUp.click();
        const restore = page.getByRole('button', { name: /^Restore backup / });
        await restore.waitFor({ timeout: 60_000 });
        const row = page.locator('[data-testid^="backup-"]').first();
        const rowText = (await row.textContent()) ?? '';
        if (!/Manual/.test(rowText) || !/images/.test(rowText))
          throw new Error(`backup row reads: ${rowText}`);
        await restore.click();
        await page
          .getByRole('button', { name: 'Restore', exact: true })
          .click();
        await waitFor(
          'a restore row that Succeeded',
          async () =>
            /Succeeded/.test(
              (await page
                .locator('[data-testid="restore-row"]')
                .first()
                .textContent({ timeout: 1000 })
                .catch(() => '')) ?? '',
            ),
          { timeoutMs: 60_000 },
        );
        const restored =
          (await page
            .locator('[data-testid="restore-row"]')
            .first()
            .textContent()) ?? '';
        if (!/restored images \(3 points, 3 in the backup\)/.test(restored))
          throw new Error(`restore row reads: ${restored}`);
        await page
          .locator('[data-testid="restore-row"]')
          .first()
          .scrollIntoViewIfNeeded();
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive-backups.png'),
          fullPage: true,
        });
        if (!(await samePage(page))) throw new Error('the page was reloaded');
      },
    );

    await run.check(
      "a canary added with kubectl at v1alpha1 (converted by the portal's webhook) shows its share live, and Promote makes it the stable model",
      async () => {
        const v2 = 's3://models/resnet50-v2.onnx';
        // An old client: the API server converts through the conversion
        // webhook the portal's embedded operator serves.
        const res = await cluster!.api.request(
          'PATCH',
          crPath.replace('/v1beta1/', '/v1alpha1/'),
          {
            spec: {
              inference: {
                canary: { modelUrl: v2, weight: 34, collection: 'images-v2' },
              },
            },
          },
          'application/merge-patch+json',
        );
        if (res.status !== 200)
          throw new Error(`patch: ${JSON.stringify(res.body)}`);
        await waitFor(
          'the canary card to show it serving a third of the requests',
          async () =>
            /33% of requests \(1\/1 canary servers ready\)/.test(
              (await page.textContent('body')) ?? '',
            ) && (await page.getByText('Serving').count()) > 0,
          { timeoutMs: 90_000 },
        );
        await page
          .getByRole('button', { name: 'Promote' })
          .scrollIntoViewIfNeeded();
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive-canary.png'),
          fullPage: true,
        });
        await page.getByRole('button', { name: 'Promote' }).click();
        await page
          .getByRole('dialog')
          .getByRole('button', { name: 'Promote' })
          .click();
        await waitFor(
          'the canary card to go and the platform to serve v2 on its collection',
          async () => {
            const cr = (await cluster!.api.request('GET', crPath)).body;
            return (
              (await page.getByRole('button', { name: 'Promote' }).count()) ===
                0 &&
              cr.spec.inference.model.url === v2 &&
              cr.spec.inference.collection === 'images-v2' &&
              !cr.spec.inference.canary
            );
          },
          { timeoutMs: 60_000 },
        );
        if (!(await samePage(page))) throw new Error('the page was reloaded');
      },
    );

    await run.check(
      "a component's entity page shows the platform it names, live",
      async () => {
        const card = await openComponentPlatformCard(page, portal!, COMPONENT);
        await waitFor(
          'the card to show 3/3 inference servers ready',
          async () => (await firstInferenceReadiness(card)) === '3/3',
          { timeoutMs: 60_000 },
        );
        const link = page.getByRole('link', { name: /View platform/ });
        const href = await link.getAttribute('href');
        if (href !== `/inference-platforms/${namespace}/${NAME}`)
          throw new Error(`card links to ${href}`);
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive-entity.png'),
        });
      },
    );

    await run.check(
      "the project's Docs tab shows the getting-started page, built by TechDocs on first view",
      async () => {
        await page.goto(
          `${
            portal!.baseUrl
          }/catalog/default/component/${DOCS_COMPONENT}/docs/getting-started/`,
        );
        // TechDocs renders the page in a shadow root; locators pierce it.
        await page
          .getByRole('heading', { name: 'Getting started', level: 1 })
          .waitFor({ timeout: 180_000 });
        await page
          .getByText('npm run test:all', { exact: false })
          .first()
          .waitFor({ timeout: 10_000 });
        // The reader keeps a progress bar over the page until every stylesheet
        // of the site has loaded (an unreachable web font would hold it for ever).
        await waitFor(
          'the TechDocs reader to finish loading the page (no progress bar)',
          async () =>
            (await page.locator('[role="progressbar"]').count()) === 0,
          { timeoutMs: 30_000 },
        );
        // The site really was built into this run's publish directory.
        const built = path.join(
          techdocsDir,
          'default',
          'component',
          DOCS_COMPONENT,
          'getting-started',
          'index.html',
        );
        if (!fs.existsSync(built)) throw new Error(`${built} was not built`);
        await page.screenshot({
          path: path.join(artifacts, 'platformsLive-docs.png'),
          fullPage: true,
        });
        // The System's Docs tab shows the same site (backstage.io/techdocs-entity).
        await page.goto(
          `${
            portal!.baseUrl
          }/catalog/default/system/cv-inference-platform/docs`,
        );
        await page
          .getByRole('heading', {
            // The site's heading (with its permalink), not the entity header's "CV inference platform".
            name: /^CV inference platforms/,
            level: 1,
          })
          .waitFor({ timeout: 60_000 });
      },
    );

    await run.check('the browser reported no uncaught errors', async () => {
      if (pageErrors.length) throw new Error(pageErrors.join('\n'));
    });
  } catch (e) {
    run.fail('setting up the portal', e);
  } finally {
    await browser?.close();
    await portal?.stop();
    await cluster?.stop();
    await s3.stop();
    fs.rmSync(techdocsDir, { recursive: true, force: true });
  }
  run.finish();
}

runScenario(main);
