import { Locator, Page } from 'playwright-core';
import type { Portal } from './Portal';
import { waitFor } from './waitFor';

/** The list row of one platform ("namespace/name"). */
export const rowSelector = (key: string) =>
  `[data-testid="platform-row"][data-key="${key}"]`;

/**
 * The sign-in page offers the guest provider; a fresh profile has no session
 * to resume, so it waits for the click. `signedIn` is something only a
 * signed-in page shows.
 */
export async function signInAsGuest(
  page: Page,
  signedIn = '[data-testid="connection-indicator"]',
  timeoutMs = 120_000,
) {
  const enter = page.getByRole('button', { name: 'Enter' });
  await enter
    .or(page.locator(signedIn))
    .first()
    .waitFor({ timeout: timeoutMs });
  if (await enter.isVisible()) await enter.click();
}

/** Marks the current document, so a later check can tell it was not reloaded. */
export async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __e2eSamePage?: boolean }).__e2eSamePage = true;
  });
}

/** True while the page is the very document markPage marked. */
export async function samePage(page: Page): Promise<boolean> {
  return page.evaluate(
    () =>
      (window as unknown as { __e2eSamePage?: boolean }).__e2eSamePage === true,
  );
}

/** A catalog Component (YAML) that names a platform, for the entity card and tab. */
export function componentNamingPlatform(
  name: string,
  platformKey: string,
  owner: string,
): string {
  return [
    'apiVersion: backstage.io/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    '  annotations:',
    `    cv.platform.tech/inference-platform: ${platformKey}`,
    'spec:',
    '  type: service',
    '  lifecycle: experimental',
    `  owner: ${owner}`,
    '',
  ].join('\n');
}

/**
 * Waits until the catalog has ingested the Component, opens its page and
 * returns the platform card on it, once shown.
 */
export async function openComponentPlatformCard(
  page: Page,
  portal: Portal,
  component: string,
): Promise<Locator> {
  const token = await portal.guestToken();
  await waitFor(
    'the catalog to ingest the component',
    async () =>
      (
        await fetch(
          `${portal.baseUrl}/api/catalog/entities/by-name/component/default/${component}`,
          { headers: { Authorization: `Bearer ${token}` } },
        )
      ).ok,
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  await page.goto(`${portal.baseUrl}/catalog/default/component/${component}`);
  const card = page.locator('[data-testid="entity-platform-card"]');
  await card.waitFor({ timeout: 60_000 });
  return card;
}

/** The inference tier's readiness ("ready/desired") shown first inside `scope`. */
export async function firstInferenceReadiness(scope: Page | Locator) {
  return (
    (
      await scope
        .locator('[data-testid="inference-readiness"]')
        .first()
        .textContent()
    )?.trim() ?? ''
  );
}
