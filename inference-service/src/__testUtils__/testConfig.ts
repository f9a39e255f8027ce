import { loadConfig, ServiceConfig } from '../config/loadConfig';

/** Service config for tests: small, fast-retrying, one worker, local host only. */
export function testConfig(env: Record<string, string> = {}): ServiceConfig {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    WORKERS: '1',
    BATCH_MAX_LATENCY_MS: '2',
    MODEL_RETRY_INITIAL_MS: '50',
    MODEL_RETRY_MAX_MS: '200',
    ...env,
  });
}
