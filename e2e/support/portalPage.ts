import { Page } from 'playwright-core';

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
