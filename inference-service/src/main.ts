import fs from 'node:fs';
import { loadConfig } from './config/loadConfig';
import { createLogger } from './server/createLogger';
import { startServer } from './server/startServer';
import {
  fetchModelCommand,
  ModelLoaderGaveUp,
} from './model/fetchModelCommand';

const log = createLogger();
/** The container's terminationMessagePath (Kubernetes' default). */
const TERMINATION_LOG = '/dev/termination-log';

async function main() {
  const config = loadConfig();
  const running = await startServer(config, { log });
  const { service } = running;

  const shutdown = async (code: number, drainMs = 0) => {
    log('info', 'shutting down');
    const force = setTimeout(() => process.exit(code || 1), 30_000 + drainMs);
    force.unref();
    await running.stop(drainMs);
    process.exit(code);
  };

  service.started.catch(err => {
    log('error', 'fatal startup error', { error: (err as Error).message });
    shutdown(1);
  });

  process.on('SIGHUP', () => {
    log('info', 'SIGHUP: reloading model');
    service.reload().then(
      r => log('info', 'model reloaded', { ...r }),
      err =>
        log('error', 'model reload failed', { error: (err as Error).message }),
    );
  });
  // Kubernetes deletes a pod's endpoints while it sends SIGTERM: keep
  // answering until every proxy has stopped sending new connections here.
  process.on('SIGTERM', () => shutdown(0, config.shutdownDelaySeconds * 1000));
  process.on('SIGINT', () => shutdown(0));
}

if (process.argv[2] === 'fetch-model') {
  // The operator's model-loader init container: download, then exit.
  fetchModelCommand(process.env, (attempt, error, delayMs) =>
    log('warn', 'model download failed, retrying', {
      attempt,
      error,
      retryInMs: delayMs,
    }),
  ).then(
    target => {
      log('info', 'model fetched', { path: target });
      process.exit(0);
    },
    err => {
      log('error', 'model download failed', { error: (err as Error).message });
      if (err instanceof ModelLoaderGaveUp) {
        // Said where the platform's status reads it; the server says it too.
        try {
          fs.writeFileSync(TERMINATION_LOG, err.message);
        } catch {
          // Not in a pod.
        }
        process.exit(0);
      }
      process.exit(1);
    },
  );
} else {
  main().catch(err => {
    log('error', 'failed to start', { error: (err as Error).message });
    process.exit(1);
  });
}
