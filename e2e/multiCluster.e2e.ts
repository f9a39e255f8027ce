/* eslint-disable no-console */
/**
 * Real-browser end-to-end test of a portal that manages two clusters: two
 * local control planes ("east", the default, and "west") hold a platform of
 * the same namespace and name. The list shows both, with their cluster; a
 * `kubectl`-style edit in west moves only west's row, live; west's row opens
 * west's page; and a Component naming `west/<namespace>/<name>` shows west's
 * platform in its entity card.
 *
 *   npx tsx e2e/multiCluster.e2e.ts
 *
 * Prints `N passed, M failed` last and exits non-zero on failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Page } from 'playwright-core';
import {
  sampleInferencePlatform,
  toV1beta1,
} from '@cv-platform/inference-platform-api';
import { createTestNamespace, LocalCluster } from '@cv-platform/local-cluster';
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
const NAME = 'search';
const COMPONENT = 'e2e-west-search';

/** One `inferencePlatform.clusters` entry, as app-config lines. */
function clusterConfig(name: string, cluster: LocalCluster): string[] {
  const q = cluster.qdrantUrlTemplates();
  return [
    `    - name: ${name}`,
    `      kubeconfigPath: ${cluster.kubeconfigPath}`,
    `      qdrantUrlTemplate: '${q.qdrantUrlTemplate}'`,
    `      qdrantPeerUrlTemplate: '${q.qdrantPeerUrlTemplate}'`,
  ];
}

async function inferenceReadiness(page: Page, key: string) {
  const text = await page
    .locator(`${rowSelector(key)} [data-testid="inference-readiness"]`)
    .textContent({ timeout: 1000 });
  return text?.trim() ?? '';
}

async function main() {
  const run = new TestRun();
  fs.mkdirSync(artifacts, { recursive: true });
  let east: LocalCluster | undefined;
  let west: LocalCluster | undefined;
  let portal: Portal | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    buildApp();
    console.log('e2e: starting two local control planes ...');
    east = await LocalCluster.start({ log: m => console.log(`[east] ${m}`) });
    west = await LocalCluster.start({ log: m => console.log(`[west] ${m}`) });
    const namespace = await createTestNamespace(east.api, 'mc');
    await west.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    const eastKey = `east/${namespace}/${NAME}`;
    const westKey = `west/${namespace}/${NAME}`;
    portal = await Portal.start({
      kubeconfig: east.kubeconfigPath,
      env: east.env(),
      logFile: path.join(artifacts, 'multiCluster-backend.log'),
      catalogYaml: componentNamingPlatform(
        COMPONENT,
        westKey,
        'group:default/e2e',
      ),
      extraConfig: [
        'inferencePlatform:',
        '  clusters:',
        ...clusterConfig('east', east),
        ...clusterConfig('west', west),
      ],
    });
    console.log(`e2e: portal at ${portal.baseUrl} (backend pid ${portal.pid})`);
    browser = await launchChromium();
    const page = await browser.context.newPage();
    run.onFirstFailure = async () => {
      await page.screenshot({
        path: path.join(artifacts, 'multiCluster-failure.png'),
        fullPage: true,
      });
      console.log('    screenshot: test-artifacts/multiCluster-failure.png');
    };
    // The same namespace and name in both clusters, as kubectl creates them.
    const crPath = `/apis/cv.platform.tech/v1beta1/namespaces/${namespace}/inferenceplatforms`;
    for (const [cluster, replicas] of [
      [east, 1],
      [west, 2],
    ] as const) {
      const p = sampleInferencePlatform(NAME, namespace);
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = replicas;
      const res = await cluster.api.request('POST', crPath, toV1beta1(p));
      if (res.status !== 201)
        throw new Error(
          `create answered ${res.status}: ${JSON.stringify(res.body)}`,
        );
    }

    await run.check(
      'the list shows both clusters’ platforms of the same name, each with its cluster',
      async () => {
        await page.goto(`${portal!.baseUrl}/inference-platforms`);
        await signInAsGuest(page);
        await page.locator(rowSelector(eastKey)).waitFor({ timeout: 120_000 });
        await page.locator(rowSelector(westKey)).waitFor({ timeout: 60_000 });
        await page
          .locator('[data-testid="cluster-filter"]')
          .waitFor({ timeout: 10_000 });
        await page
          .getByRole('columnheader', { name: 'Cluster' })
          .waitFor({ timeout: 10_000 });
        await markPage(page);
      },
    );

    await run.check(
      'an edit in west moves only west’s row, without a reload',
      async () => {
        const res = await west!.api.request(
          'PATCH',
          `${crPath}/${NAME}`,
          { spec: { inference: { replicas: 3 } } },
          'application/merge-patch+json',
        );
        if (res.status !== 200) throw new Error(`patch answered ${res.status}`);
        await waitFor(
          'west’s row to want 3 servers',
          async () => (await inferenceReadiness(page, westKey)).endsWith('/3'),
          { timeoutMs: 30_000 },
        );
        const eastNow = await inferenceReadiness(page, eastKey);
        if (!eastNow.endsWith('/1'))
          throw new Error(`east’s row changed too: ${eastNow}`);
        if (!(await samePage(page))) throw new Error('the page was reloaded');
      },
    );

    await run.check('west’s row opens west’s platform page', async () => {
      await page
        .locator(`${rowSelector(westKey)} a`)
        .first()
        .click();
      await page.waitForURL(/\?cluster=west$/, { timeout: 30_000 });
      await page
        .getByText(
          `Inference platform in namespace ${namespace} on cluster west`,
        )
        .first()
        .waitFor({ timeout: 30_000 });
      await waitFor(
        'west’s 3 wanted servers on its page',
        async () => (await firstInferenceReadiness(page)).endsWith('/3'),
        { timeoutMs: 30_000 },
      );
    });

    await run.check(
      'a Component naming west/<namespace>/<name> shows west’s platform in its card',
      async () => {
        const card = await openComponentPlatformCard(page, portal!, COMPONENT);
        await waitFor(
          'the card to show west’s 3 wanted servers',
          async () => (await firstInferenceReadiness(card)).endsWith('/3'),
          { timeoutMs: 60_000 },
        );
        await page.screenshot({
          path: path.join(artifacts, 'multiCluster-entity-card.png'),
          fullPage: true,
        });
      },
    );
  } catch (e) {
    run.fail('setup', e);
  } finally {
    await browser?.close();
    await portal?.stop();
    await west?.stop();
    await east?.stop();
  }
  run.finish();
}

runScenario(main);
