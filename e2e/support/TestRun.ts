/* eslint-disable no-console */

/**
 * Sequential checks of one scenario: each builds on the previous ones, so
 * after a failure the rest are reported as failed (not run) instead of
 * failing again with confusing follow-up errors.
 */
export class TestRun {
  private passed = 0;
  private failed = 0;
  private broken?: string;

  /** Called once with the first failing check, e.g. to save a screenshot. */
  onFirstFailure?: (name: string) => Promise<void>;

  async check(name: string, fn: () => Promise<void>) {
    if (this.broken) {
      this.failed++;
      console.log(`✗ ${name} (not run: "${this.broken}" failed)`);
      return;
    }
    const started = Date.now();
    try {
      await fn();
      this.passed++;
      console.log(
        `✓ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    } catch (e) {
      this.failed++;
      this.broken = name;
      console.log(
        `✗ ${name}\n    ${e instanceof Error ? e.stack ?? e.message : e}`,
      );
      await this.onFirstFailure?.(name).catch(err =>
        console.log(`    (saving failure evidence failed: ${err})`),
      );
    }
  }

  /** A failure outside any check (setup, teardown). */
  fail(what: string, e: unknown) {
    this.failed++;
    this.broken ??= what;
    console.log(
      `✗ ${what}\n    ${e instanceof Error ? e.stack ?? e.message : e}`,
    );
  }

  get ok() {
    return this.failed === 0;
  }

  summary(): string {
    return `${this.passed} passed, ${this.failed} failed`;
  }

  /** Prints the summary (the last line, which CI reads) and exits with the verdict. */
  finish(): never {
    console.log(this.summary());
    process.exit(this.ok ? 0 : 1);
  }
}

/** Runs a scenario's main; a crash outside its checks still ends with a summary line. */
export function runScenario(main: () => Promise<void>) {
  main().catch(e => {
    console.error(e);
    console.log('0 passed, 1 failed');
    process.exit(1);
  });
}
