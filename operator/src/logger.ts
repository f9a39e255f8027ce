/**
 * The logging surface the operator needs; Backstage's LoggerService and console both fit.
 *
 * @public
 */
export interface Logger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
  debug?(message: string, meta?: Record<string, unknown>): void;
}

/** @public */
export const noopLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * klog-like single-line logs for the standalone binary.
 *
 * @public
 */
export function consoleLogger(): Logger {
  const line = (level: string, message: string, meta?: Record<string, unknown>) => {
    const kv = meta
      ? Object.entries(meta)
          .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
          .join('')
      : '';
    process.stderr.write(`${level} ${new Date().toISOString()} ${JSON.stringify(message)}${kv}\n`);
  };
  return {
    info: (m, meta) => line('I', m, meta),
    warn: (m, meta) => line('W', m, meta),
    error: (m, meta) => line('E', m, meta),
    debug: () => {},
  };
}
