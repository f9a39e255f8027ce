const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

/**
 * Polls `check` until it returns a truthy value, which is returned; the
 * failure names what was awaited and the last value or error seen.
 */
export async function waitFor<T>(
  what: string,
  check: () =>
    | Promise<T | undefined | null | false>
    | T
    | undefined
    | null
    | false,
  options: { timeoutMs?: number; intervalMs?: number; alive?: () => void } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: unknown;
  for (;;) {
    options.alive?.();
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (e) {
      last = e instanceof Error ? e.message : e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what} (last: ${JSON.stringify(last)})`,
      );
    }
    await sleep(options.intervalMs ?? 250);
  }
}
