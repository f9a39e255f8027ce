/* eslint-disable no-console */
/**
 * Real-browser end-to-end test of the "Inference platform" software template:
 * starts a local control plane, the Backstage backend (serving the built app,
 * with the repository's catalog: the template and deploy/catalog/org.yaml) and
 * headless Debian Chromium; fills the template's form at /create (including a
 * value the form rejects), reviews it, creates the platform, follows the task
 * to its end, then checks the custom resource in the cluster and watches the
 * platform appear and turn Ready on /inference-platforms without a reload.
 *
 *   npx tsx e2e/scaffolderCreate.e2e.ts
 *   E2E_SKIP_APP_BUILD=1 npx tsx e2e/scaffolderCreate.e2e.ts  # reuse packages/app/dist
 *
 * Prints `N passed, M failed` last and exits non-zero on failure. Screenshots
 * and the backend and browser logs go to test-artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Page } from 'playwright-core';
import { createTestNamespace, LocalCluster } from '@cv-platform/local-cluster';
import { launchChromium } from './support/launchChromium';
import { buildApp, Portal, repoRoot } from './support/Portal';
import {
  markPage,
  rowSelector,
  samePage,
  signInAsGuest,
} from './support/portalPage';
import { runScenario, TestRun } from './support/TestRun';
import { waitFor } from './support/waitFor';

const artifacts = path.join(repoRoot, 'test-artifacts');
const NAME = 'e2e-scaffolded';
const OWNER = 'group:default/ml-platform';
const VALUES = {
  qdrantVersion: 'v1.9.0',
  qdrantReplicas: 2,
  modelUrl: 'https://models.example.com/resnet50-v2-7.onnx',
  image: 'cv-platform/inference-service:e2e-scaffolded',
  inferenceReplicas: 2,
};

async function main() {
  const run = new TestRun();
  fs.mkdirSync(artifacts, { recursive: true });
  for (const stale of [
    'scaffolderCreate-failure.png',
    'scaffolderCreate-list-failure.png',
  ])
    fs.rmSync(path.join(artifacts, stale), { force: true });
  let cluster: LocalCluster | undefined;
  let portal: Portal | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    buildApp();
    console.log('e2e: starting the local control plane ...');
    cluster = await LocalCluster.start({
      log: m => console.log(`[local-cluster] ${m}`),
    });
    const namespace = await createTestNamespace(cluster.api, 'e2e');
    const key = `${namespace}/${NAME}`;
    const crPath = `/apis/cv.platform.tech/v1beta1/namespaces/${namespace}/inferenceplatforms/${NAME}`;
    console.log('e2e: starting the backend ...');
    // The repository's catalog locations: the template and the org (guest,
    // ml-platform) the OwnerPicker offers.
    portal = await Portal.start({
      kubeconfig: cluster.kubeconfigPath,
      env: cluster.env(),
      logFile: path.join(artifacts, 'scaffolderCreate-backend.log'),
    });
    console.log(`e2e: portal at ${portal.baseUrl} (backend pid ${portal.pid})`);
    const baseUrl = portal.baseUrl;
    const token = await portal.guestToken();
    const api = (p: string, init: RequestInit = {}) =>
      fetch(`${baseUrl}${p}`, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, ...init.headers },
      });

    browser = await launchChromium();
    const page = await browser.context.newPage();
    const pageErrors: string[] = [];
    const consoleLog = fs.createWriteStream(
      path.join(artifacts, 'scaffolderCreate-browser.log'),
    );
    const watch = (p: Page, tag: string) => {
      p.on('pageerror', e => pageErrors.push(`[${tag}] ${e.message}`));
      p.on('console', m =>
        consoleLog.write(`[${tag}] [${m.type()}] ${m.text()}\n`),
      );
      p.on('requestfailed', r =>
        consoleLog.write(
          `[${tag}] [requestfailed] ${r.url()} ${r.failure()?.errorText}\n`,
        ),
      );
    };
    watch(page, 'form');
    let listPage: Page | undefined;
    run.onFirstFailure = async () => {
      await page.screenshot({
        path: path.join(artifacts, 'scaffolderCreate-failure.png'),
        fullPage: true,
      });
      await listPage?.screenshot({
        path: path.join(artifacts, 'scaffolderCreate-list-failure.png'),
        fullPage: true,
      });
      console.log(
        '    screenshots: test-artifacts/scaffolderCreate-*failure.png, browser log: test-artifacts/scaffolderCreate-browser.log',
      );
    };

    await run.check(
      'the catalog has ingested the template and the organisation',
      async () => {
        for (const ref of [
          'template/default/inference-platform',
          'group/default/ml-platform',
          'user/default/guest',
        ]) {
          await waitFor(
            `catalog entity ${ref}`,
            async () => (await api(`/api/catalog/entities/by-name/${ref}`)).ok,
            { timeoutMs: 180_000, intervalMs: 1000 },
          );
        }
      },
    );

    await run.check(
      'the platform list is open in a second tab and its feed is live',
      async () => {
        listPage = await browser!.context.newPage();
        watch(listPage, 'list');
        await listPage.goto(`${baseUrl}/inference-platforms`);
        await signInAsGuest(listPage, '[data-testid="connection-indicator"]');
        await listPage
          .locator('[data-testid="connection-indicator"][data-state="live"]')
          .waitFor({ timeout: 120_000 });
        await listPage
          .getByText('No inference platforms yet')
          .waitFor({ timeout: 60_000 });
        await markPage(listPage);
      },
    );

    await run.check(
      '/create lists the "Inference platform" template and opens its form',
      async () => {
        await page.bringToFront();
        await page.goto(`${baseUrl}/create`);
        // The session from the other tab is shared; sign in only if asked.
        const title = page.getByText('Inference platform', { exact: true });
        await signInAsGuest(page, 'text="Inference platform"');
        await title.first().waitFor({ timeout: 120_000 });
        // The card of that template, and its Choose button.
        const card = page
          .locator('.MuiCard-root, article')
          .filter({ has: title })
          .first();
        await card.getByRole('button', { name: /choose/i }).click();
        await page.waitForURL(
          /\/create\/templates\/default\/inference-platform/,
          {
            timeout: 60_000,
          },
        );
        await page.locator('#root_name').waitFor({ timeout: 60_000 });
      },
    );

    await run.check(
      'the Platform page takes the namespace and an owner from the OwnerPicker',
      async () => {
        await page.locator('#root_namespace').fill(namespace);
        const owner = page.locator('#root_owner');
        await owner.click();
        await owner.fill('ml-platform');
        const option = page.getByRole('option', { name: /ml-platform/ });
        await option.first().waitFor({ timeout: 60_000 });
        await option.first().click();
        await waitFor(
          'the owner to be chosen',
          async () => (await owner.inputValue()).includes('ml-platform'),
          { timeoutMs: 10_000 },
        );
      },
    );

    await run.check(
      'an invalid name shows a validation error and the form stays on its first page',
      async () => {
        await page.locator('#root_name').fill('Bad_Name');
        await page.getByRole('button', { name: 'Next' }).click();
        // rjsf lists a field's errors under `<id>__error`.
        const message = await waitFor(
          'a pattern error on the name field',
          async () =>
            (await page
              .locator('#root_name[aria-invalid="true"]')
              .isVisible()) &&
            (await page.locator('#root_name__error').textContent({
              timeout: 1000,
            })),
          { timeoutMs: 30_000 },
        );
        if (!/pattern/i.test(message))
          throw new Error(`unexpected error on the name field: ${message}`);
        console.log(`    name error: ${message.trim()}`);
        await page.screenshot({
          path: path.join(artifacts, 'scaffolderCreate-invalid.png'),
          fullPage: true,
        });
        if (await page.locator('#root_qdrant_version').isVisible())
          throw new Error('the form moved on to the Qdrant page');
        if (!(await page.locator('#root_name').isVisible()))
          throw new Error('the name field is gone');
      },
    );

    await run.check(
      'a valid name lets the form move on to the Qdrant page',
      async () => {
        await page.locator('#root_name').fill(NAME);
        await page.getByRole('button', { name: 'Next' }).click();
        await page.locator('#root_qdrant_version').waitFor({ timeout: 30_000 });
      },
    );

    await run.check(
      'the Qdrant and Inference servers pages take the version, model, image and replicas',
      async () => {
        await page.locator('#root_qdrant_version').fill(VALUES.qdrantVersion);
        await page
          .locator('#root_qdrant_replicas')
          .fill(String(VALUES.qdrantReplicas));
        await page.getByRole('button', { name: 'Next' }).click();
        await page
          .locator('#root_inference_model_url')
          .waitFor({ timeout: 30_000 });
        await page.locator('#root_inference_model_url').fill(VALUES.modelUrl);
        await page.locator('#root_inference_image').fill(VALUES.image);
        await page
          .locator('#root_inference_replicas')
          .fill(String(VALUES.inferenceReplicas));
        await page.getByRole('button', { name: 'Next' }).click();
        // Delivery: the defaults (create in the cluster now, wait for Ready).
        await page.getByRole('button', { name: 'Review' }).waitFor({
          timeout: 30_000,
        });
      },
    );

    await run.check('the review step shows the values typed', async () => {
      await page.getByRole('button', { name: 'Review' }).click();
      await page
        .getByRole('button', { name: 'Create' })
        .waitFor({ timeout: 30_000 });
      for (const text of [
        NAME,
        namespace,
        VALUES.modelUrl,
        VALUES.image,
        VALUES.qdrantVersion,
      ]) {
        await page
          .getByText(text, { exact: true })
          .first()
          .waitFor({ timeout: 10_000 });
      }
      await page.screenshot({
        path: path.join(artifacts, 'scaffolderCreate-review.png'),
        fullPage: true,
      });
    });

    let taskId = '';
    await run.check(
      'Create starts a task that runs to completion and links to the platform',
      async () => {
        await page.getByRole('button', { name: 'Create' }).click();
        await page.waitForURL(/\/create\/tasks\/[^/?#]+/, { timeout: 60_000 });
        taskId = /\/create\/tasks\/([^/?#]+)/.exec(page.url())![1];
        console.log(`    task ${taskId}`);
        const status = await waitFor(
          'the task to finish',
          async () => {
            const res = await api(`/api/scaffolder/v2/tasks/${taskId}`);
            if (!res.ok) return false;
            const body = (await res.json()) as { status: string };
            return ['completed', 'failed', 'cancelled'].includes(body.status)
              ? body.status
              : false;
          },
          { timeoutMs: 600_000, intervalMs: 1000 },
        );
        if (status !== 'completed') {
          const events = await (
            await api(`/api/scaffolder/v2/tasks/${taskId}/events`)
          ).text();
          throw new Error(`task ${status}; events: ${events.slice(-3000)}`);
        }
        // The task page shows the output links once the task is done.
        const open = page.getByRole('link', { name: /Open the platform/ });
        await open.first().waitFor({ timeout: 60_000 });
        const href = await open.first().getAttribute('href');
        if (!href?.endsWith(`/inference-platforms/${namespace}/${NAME}`))
          throw new Error(`"Open the platform" links to ${href}`);
        await page
          .getByRole('link', { name: /Open in catalog/ })
          .first()
          .waitFor({ timeout: 30_000 });
        await page.screenshot({
          path: path.join(artifacts, 'scaffolderCreate-task.png'),
          fullPage: true,
        });
      },
    );

    await run.check(
      'the InferencePlatform in the cluster has the values typed into the form',
      async () => {
        const res = await cluster!.api.request('GET', crPath);
        if (res.status !== 200)
          throw new Error(`GET ${crPath} answered ${res.status}`);
        const cr = res.body as {
          metadata: { annotations?: Record<string, string> };
          spec: {
            qdrant: { version: string; replicas: number };
            inference: {
              model: { url: string };
              image: string;
              replicas: number;
            };
          };
        };
        const expect = (what: string, actual: unknown, expected: unknown) => {
          if (actual !== expected)
            throw new Error(
              `${what} is ${JSON.stringify(actual)}, expected ${JSON.stringify(
                expected,
              )}`,
            );
        };
        const a = cr.metadata.annotations ?? {};
        expect('the owner annotation', a['cv.platform.tech/owner'], OWNER);
        expect(
          'the task annotation',
          a['cv.platform.tech/scaffolder-task'],
          taskId,
        );
        expect(
          'spec.qdrant.version',
          cr.spec.qdrant.version,
          VALUES.qdrantVersion,
        );
        expect(
          'spec.qdrant.replicas',
          cr.spec.qdrant.replicas,
          VALUES.qdrantReplicas,
        );
        expect(
          'spec.inference.model.url',
          cr.spec.inference.model.url,
          VALUES.modelUrl,
        );
        expect('spec.inference.image', cr.spec.inference.image, VALUES.image);
        expect(
          'spec.inference.replicas',
          cr.spec.inference.replicas,
          VALUES.inferenceReplicas,
        );
      },
    );

    await run.check(
      'the list tab shows the new platform, Ready, without a reload',
      async () => {
        const lp = listPage!;
        await lp.bringToFront();
        const row = lp.locator(rowSelector(key));
        await row.waitFor({ timeout: 60_000 });
        await row.locator('[data-phase="Ready"]').waitFor({ timeout: 180_000 });
        const ready = (tier: string) =>
          row
            .locator(`[data-testid="${tier}-readiness"]`)
            .first()
            .textContent();
        await waitFor(
          `qdrant ${VALUES.qdrantReplicas}/${VALUES.qdrantReplicas} and inference ${VALUES.inferenceReplicas}/${VALUES.inferenceReplicas}`,
          async () =>
            (await ready('qdrant'))?.trim() ===
              `${VALUES.qdrantReplicas}/${VALUES.qdrantReplicas}` &&
            (await ready('inference'))?.trim() ===
              `${VALUES.inferenceReplicas}/${VALUES.inferenceReplicas}`,
          { timeoutMs: 60_000 },
        );
        if (!(await samePage(lp))) throw new Error('the list tab was reloaded');
      },
    );

    await run.check(
      'navigating to /inference-platforms shows the platform Ready',
      async () => {
        await page.bringToFront();
        await page.goto(`${baseUrl}/inference-platforms`);
        const row = page.locator(rowSelector(key));
        await row.waitFor({ timeout: 60_000 });
        await row.locator('[data-phase="Ready"]').waitFor({ timeout: 60_000 });
        await page.screenshot({
          path: path.join(artifacts, 'scaffolderCreate.png'),
          fullPage: true,
        });
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
  }
  run.finish();
}

runScenario(main);
