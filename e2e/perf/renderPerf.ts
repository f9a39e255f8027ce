/* eslint-disable no-console */
/**
 * Performance check of the live platform list (a script, not a test):
 * 1,000 platforms and 100 events/s, fed to the real app in headless
 * Chromium. Reports renders per event (from the plugin's render counters,
 * which work in the production bundle) and frame times (requestAnimationFrame
 * deltas and long tasks) measured in the browser.
 *
 *   npx tsx e2e/perf/renderPerf.ts [--platforms 1000] [--rate 100] [--seconds 10]
 *
 * The backend serves the built app and handles sign-in and permissions; the
 * page's GET /events is rerouted to a local SSE server on 127.0.0.1 that
 * speaks the same contract, because a local cluster cannot hold 1,000
 * platforms' workloads on this machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Page } from 'playwright-core';
import { LocalCluster } from '@cv-platform/local-cluster';
import { launchChromium } from '../support/launchChromium';
import { buildApp, Portal, repoRoot } from '../support/Portal';
import { waitFor } from '../support/waitFor';
import { FakeEventServer } from './FakeEventServer';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const PLATFORMS = arg('platforms', 1000);
const RATE = arg('rate', 100);
const SECONDS = arg('seconds', 10);

/**
 * Installed before any page script: render counters and a frame recorder.
 * Plain source text, because tsx would wrap functions passed to the browser
 * in its own helpers, which do not exist there.
 */
const instrumentation = `
  window.__CV_RENDER_COUNTS__ = {};
  const perf = { recording: false, last: 0, frames: [], longTasks: [] };
  window.__perf = perf;
  const loop = t => {
    if (perf.recording) {
      if (perf.last) perf.frames.push(t - perf.last);
      perf.last = t;
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  try {
    new PerformanceObserver(list => {
      if (perf.recording) for (const e of list.getEntries()) perf.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
  } catch (e) {
    // Long task timing is Chromium-only; frames alone still tell the story.
  }
`;

interface Sample {
  renders: Record<string, number>;
  frames: number[];
  longTasks: number[];
  heapMb?: number;
}

async function startRecording(page: Page) {
  await page.evaluate(`
    window.__CV_RENDER_COUNTS__ = {};
    Object.assign(window.__perf, { recording: true, last: 0, frames: [], longTasks: [] });
  `);
}

async function stopRecording(page: Page): Promise<Sample> {
  return page.evaluate(`(() => {
    window.__perf.recording = false;
    const renders = {};
    for (const [k, v] of Object.entries(window.__CV_RENDER_COUNTS__)) {
      if (!k.includes(':')) renders[k] = v;
    }
    const memory = performance.memory;
    return {
      renders,
      frames: window.__perf.frames,
      longTasks: window.__perf.longTasks,
      heapMb: memory ? memory.usedJSHeapSize / 1048576 : undefined,
    };
  })()`) as Promise<Sample>;
}

const pct = (sorted: number[], p: number) =>
  sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
    : NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;

function report(name: string, sample: Sample, events: number, seconds: number) {
  const f = [...sample.frames].sort((a, b) => a - b);
  const mean = f.reduce((a, b) => a + b, 0) / (f.length || 1);
  const rows = sample.renders.PlatformRow ?? 0;
  const table = sample.renders.PlatformTable ?? 0;
  const longTotal = sample.longTasks.reduce((a, b) => a + b, 0);
  console.log(`\n== ${name}`);
  // Frame times depend on what else the machine runs; the render counts do not.
  console.log(
    `machine load (1 min)  ${os.loadavg()[0].toFixed(2)} on ${
      os.cpus().length
    } cores`,
  );
  console.log(
    `events delivered      ${events} in ${seconds.toFixed(1)} s (${(
      events / seconds
    ).toFixed(1)}/s)`,
  );
  console.log(
    `PlatformRow renders   ${rows} = ${(rows / events).toFixed(3)} per event`,
  );
  console.log(
    `PlatformTable renders ${table} = ${(table / events).toFixed(3)} per event`,
  );
  console.log(
    `frames                ${f.length} (${(f.length / seconds).toFixed(
      1,
    )} fps); mean ${ms(mean)}, p50 ${ms(pct(f, 50))}, p95 ${ms(
      pct(f, 95),
    )}, p99 ${ms(pct(f, 99))}, max ${ms(f[f.length - 1] ?? NaN)}`,
  );
  console.log(
    `slow frames           ${f.filter(x => x > 17).length} over 17 ms, ${
      f.filter(x => x > 34).length
    } over 34 ms, ${f.filter(x => x > 50).length} over 50 ms`,
  );
  console.log(
    `long tasks            ${sample.longTasks.length}, ${ms(
      longTotal,
    )} in total`,
  );
  if (sample.heapMb !== undefined)
    console.log(`JS heap               ${sample.heapMb.toFixed(0)} MB`);
  return {
    name,
    events,
    rowRendersPerEvent: rows / events,
    tableRendersPerEvent: table / events,
    fps: f.length / seconds,
    frameMs: {
      mean,
      p50: pct(f, 50),
      p95: pct(f, 95),
      p99: pct(f, 99),
      max: f[f.length - 1],
    },
    longTasks: { count: sample.longTasks.length, totalMs: longTotal },
    loadAverage1m: os.loadavg()[0],
  };
}

async function measure(page: Page, server: FakeEventServer, name: string) {
  const before = server.sent;
  await startRecording(page);
  const started = Date.now();
  server.setRate(RATE);
  await new Promise(r => setTimeout(r, SECONDS * 1000));
  server.setRate(0);
  const seconds = (Date.now() - started) / 1000;
  // Let the last events land before reading the counters.
  await new Promise(r => setTimeout(r, 300));
  const sample = await stopRecording(page);
  return report(name, sample, server.sent - before, seconds);
}

async function choosePageSize(page: Page, option: string) {
  await page.locator('[aria-haspopup="listbox"]').last().click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

async function rowCount(page: Page) {
  return page.locator('[data-testid="platform-row"]').count();
}

async function main() {
  const artifacts = path.join(repoRoot, 'test-artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  fs.rmSync(path.join(artifacts, 'renderPerf-failure.png'), { force: true });
  const server = new FakeEventServer(PLATFORMS);
  let cluster: LocalCluster | undefined;
  let portal: Portal | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let failurePage: Page | undefined;
  const results = [];
  try {
    const feedUrl = await server.listen();
    buildApp();
    // The backend needs a cluster to start its plugin; the platforms come from the fake feed.
    cluster = await LocalCluster.start({ log: () => undefined });
    portal = await Portal.start({
      kubeconfig: cluster.kubeconfigPath,
      env: cluster.env(),
      logFile: path.join(artifacts, 'renderPerf-backend.log'),
    });
    browser = await launchChromium();
    const page = await browser.context.newPage();
    failurePage = page;
    await page.addInitScript(instrumentation);
    page.on('pageerror', e => console.log(`page error: ${e.message}`));
    await page.route('**/api/inference-platform/events', route =>
      route.continue({ url: `${feedUrl}/events` }),
    );

    const loadStart = Date.now();
    await page.goto(`${portal.baseUrl}/inference-platforms`);
    const enter = page.getByRole('button', { name: 'Enter' });
    const row = page.locator('[data-testid="platform-row"]').first();
    await enter.or(row).first().waitFor({ timeout: 60_000 });
    if (await enter.isVisible()) await enter.click();
    await row.waitFor({ timeout: 60_000 });
    console.log(
      `first page of ${await rowCount(page)} rows (of ${PLATFORMS}) shown ${
        Date.now() - loadStart
      } ms after navigation, sign-in included`,
    );

    results.push(
      await measure(
        page,
        server,
        `default page: 50 of ${PLATFORMS} rows, sorted by name`,
      ),
    );

    await choosePageSize(page, '100');
    await waitFor(
      '100 rows in the DOM',
      async () => (await rowCount(page)) === 100,
      { timeoutMs: 60_000 },
    );
    results.push(
      await measure(
        page,
        server,
        `100 of ${PLATFORMS} rows per page, sorted by name`,
      ),
    );

    const allStart = Date.now();
    await choosePageSize(page, 'All');
    await page
      .getByText(`1-${PLATFORMS} of ${PLATFORMS}`)
      .waitFor({ timeout: 60_000 });
    console.log(
      `\n"All" (${PLATFORMS} rows, ${await rowCount(
        page,
      )} of them in the DOM) ready ${
        Date.now() - allStart
      } ms after choosing it`,
    );
    results.push(
      await measure(
        page,
        server,
        `all ${PLATFORMS} rows (virtualized), sorted by name`,
      ),
    );
    await page.screenshot({ path: path.join(artifacts, 'renderPerf-all.png') });

    await page.getByRole('button', { name: 'Phase' }).click();
    results.push(
      await measure(
        page,
        server,
        `all ${PLATFORMS} rows (virtualized), sorted by phase: events reorder rows`,
      ),
    );

    // Scrolled to the middle while events stream: the window must follow.
    await page
      .locator('[data-testid="platform-table-scroller"]')
      .evaluate(el => {
        el.scrollTop = el.scrollHeight / 2;
      });
    results.push(
      await measure(
        page,
        server,
        `all ${PLATFORMS} rows (virtualized), sorted by phase, scrolled to the middle`,
      ),
    );

    fs.writeFileSync(
      path.join(artifacts, 'renderPerf.json'),
      JSON.stringify(
        { platforms: PLATFORMS, rate: RATE, seconds: SECONDS, results },
        null,
        2,
      ),
    );
    console.log('\nresults: test-artifacts/renderPerf.json');
  } catch (e) {
    await failurePage
      ?.screenshot({ path: path.join(artifacts, 'renderPerf-failure.png') })
      .catch(() => undefined);
    throw e;
  } finally {
    await browser?.close();
    await portal?.stop();
    await cluster?.stop();
    await server.close();
  }
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
