#!/usr/bin/env -S npx tsx
/**
 * Standalone operator: in-cluster (service account) or against a kubeconfig.
 *
 *   inference-platform-operator [--kubeconfig FILE] [--namespace NS]... [--no-leader-elect]
 *                               [--workers N] [--metrics-port 8080]
 *                               [--credential-refresh-seconds 60] [--watch-timeout-seconds S]
 *                               [--qdrant-url-template URL] [--qdrant-peer-url-template URL]
 */
import http from 'node:http';
import { collectDefaultMetrics } from 'prom-client';
import { Operator } from './Operator';
import { loadKubeConfig } from './kube/loadKubeConfig';
import { consoleLogger } from './logger';

function parseArgs(argv: string[]) {
  const out = {
    namespaces: [] as string[],
    leaderElect: true,
    workers: 4,
    metricsPort: 8080,
    kubeconfig: undefined as string | undefined,
    credentialRefreshSeconds: undefined as number | undefined,
    watchTimeoutSeconds: undefined as number | undefined,
    qdrantUrlTemplate: undefined as string | undefined,
    qdrantPeerUrlTemplate: undefined as string | undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--kubeconfig') out.kubeconfig = argv[++i];
    else if (a === '--namespace') out.namespaces.push(argv[++i]);
    else if (a === '--no-leader-elect') out.leaderElect = false;
    else if (a === '--workers') out.workers = Number(argv[++i]);
    else if (a === '--metrics-port') out.metricsPort = Number(argv[++i]);
    else if (a === '--credential-refresh-seconds') out.credentialRefreshSeconds = Number(argv[++i]);
    else if (a === '--watch-timeout-seconds') out.watchTimeoutSeconds = Number(argv[++i]);
    else if (a === '--qdrant-url-template') out.qdrantUrlTemplate = argv[++i];
    else if (a === '--qdrant-peer-url-template') out.qdrantPeerUrlTemplate = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const logger = consoleLogger();
  const inCluster = !args.kubeconfig && !process.env.KUBECONFIG && !!process.env.KUBERNETES_SERVICE_HOST;
  const kubeConfig = loadKubeConfig({ kubeconfigPath: args.kubeconfig, inCluster });
  const operator = new Operator({
    kubeConfig,
    namespaces: args.namespaces,
    workers: args.workers,
    leaderElection: {
      enabled: args.leaderElect,
      leaseNamespace: process.env.POD_NAMESPACE ?? 'default',
      identity: process.env.POD_NAME,
    },
    logger,
    credentialRefreshMs: args.credentialRefreshSeconds === undefined ? undefined : args.credentialRefreshSeconds * 1000,
    watchTimeoutSeconds: args.watchTimeoutSeconds,
    qdrantUrlTemplate: args.qdrantUrlTemplate,
    qdrantPeerUrlTemplate: args.qdrantPeerUrlTemplate,
  });
  // Process metrics (heap, RSS, event loop lag) belong to the standalone
  // process; embedded in Backstage, the host process reports its own.
  collectDefaultMetrics({ register: operator.metrics.registry });
  const gc = (globalThis as { gc?: () => void }).gc;
  const server = http.createServer(async (req, res) => {
    if (req.url === '/metrics') {
      // Started with --expose-gc (benchmarks): heap figures are live data only.
      gc?.();
      res.setHeader('Content-Type', operator.metrics.registry.contentType);
      res.end(await operator.metrics.registry.metrics());
    } else if (req.url === '/healthz' || req.url === '/readyz') {
      res.end('ok');
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  server.listen(args.metricsPort);
  await operator.start();
  logger.info('Operator started', { namespaces: args.namespaces.length ? args.namespaces : 'all' });
  const shutdown = async (signal: string) => {
    logger.info(`Received ${signal}, shutting down`);
    await operator.stop();
    server.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch(e => {
  process.stderr.write(`E ${e instanceof Error ? e.stack : e}\n`);
  process.exit(1);
});
