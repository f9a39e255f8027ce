#!/usr/bin/env -S npx tsx
/**
 * Standalone operator: in-cluster (service account) or against a kubeconfig;
 * the options are in USAGE (`--help`). The conversion webhook serves when a
 * port is given; the API server reaches it through the Service NAME in
 * POD_NAMESPACE (default inference-platform-operator-webhook) or at URL (an
 * operator outside the cluster).
 */
import http from 'node:http';
import { collectDefaultMetrics } from 'prom-client';
import { Operator } from './Operator';
import { loadKubeConfig } from './kube/loadKubeConfig';
import { KubeClient } from './kube/KubeClient';
import { migrateStoredVersions } from './storage/migrateStoredVersions';
import { operatorHealth } from './health/operatorHealth';
import { consoleLogger } from './logger';

const USAGE = `Usage:
  inference-platform-operator [options]            reconcile InferencePlatforms
  inference-platform-operator migrate-storage      rewrite stored platforms at the storage version, then exit

Options:
  --kubeconfig FILE                   kubeconfig (default: KUBECONFIG, in-cluster, ~/.kube/config)
  --namespace NS                      watch NS only (repeatable; default: all namespaces)
  --no-leader-elect                   reconcile without holding the Lease (one replica only)
  --workers N                         concurrent reconciles (default 4)
  --metrics-port PORT                 /metrics, /healthz and /readyz (default 8080)
  --credential-refresh-seconds S      re-read kubeconfig credentials every S (default 60)
  --watch-timeout-seconds S           server-side timeout of each watch (default: 240..300)
  --qdrant-url-template URL           reach each Qdrant at URL ({namespace}, {name}, {statefulSet})
  --qdrant-peer-url-template URL      reach each Qdrant peer at URL (also {pod})
  --conversion-webhook-port PORT      serve the CRD's conversion webhook (HTTPS)
  --conversion-webhook-url URL        where the API server calls it (an operator outside the cluster);
                                      a base URL (https://host:port) gets the path /convert
  --conversion-webhook-service NAME   the Service in POD_NAMESPACE it is called through
  --migrate-storage                   once leading, migrate stored platforms (as migrate-storage)
  -h, --help                          this text
`;

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
    webhookPort: undefined as number | undefined,
    webhookUrl: undefined as string | undefined,
    webhookService: undefined as string | undefined,
    migrateStorage: false,
    command: undefined as 'migrate-storage' | undefined,
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
    else if (a === '--conversion-webhook-port') out.webhookPort = Number(argv[++i]);
    else if (a === '--conversion-webhook-url') out.webhookUrl = argv[++i];
    else if (a === '--conversion-webhook-service') out.webhookService = argv[++i];
    else if (a === '--migrate-storage') out.migrateStorage = true;
    else if (a === 'migrate-storage' && i === 0) out.command = a;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else {
      process.stderr.write(`inference-platform-operator: unknown argument ${a}\n\n${USAGE}`);
      process.exit(2);
    }
  }
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const logger = consoleLogger();
  const inCluster = !args.kubeconfig && !process.env.KUBECONFIG && !!process.env.KUBERNETES_SERVICE_HOST;
  const kubeConfig = loadKubeConfig({ kubeconfigPath: args.kubeconfig, inCluster });
  if (args.command === 'migrate-storage') {
    const client = new KubeClient(kubeConfig);
    const result = await migrateStoredVersions(client, { logger });
    client.close();
    process.stdout.write(
      `${result.rewritten} objects rewritten at ${result.storageVersion}; storedVersions ${JSON.stringify(result.before)} -> ${JSON.stringify(result.after)}\n`,
    );
    return;
  }
  const podNamespace = process.env.POD_NAMESPACE ?? 'default';
  const operator = new Operator({
    kubeConfig,
    namespaces: args.namespaces,
    workers: args.workers,
    leaderElection: {
      enabled: args.leaderElect,
      leaseNamespace: podNamespace,
      identity: process.env.POD_NAME,
    },
    logger,
    credentialRefreshMs: args.credentialRefreshSeconds === undefined ? undefined : args.credentialRefreshSeconds * 1000,
    watchTimeoutSeconds: args.watchTimeoutSeconds,
    qdrantUrlTemplate: args.qdrantUrlTemplate,
    qdrantPeerUrlTemplate: args.qdrantPeerUrlTemplate,
    conversionWebhook:
      args.webhookPort === undefined
        ? undefined
        : {
            port: args.webhookPort,
            url: args.webhookUrl,
            service: args.webhookService ? { namespace: podNamespace, name: args.webhookService } : undefined,
            secretNamespace: podNamespace,
          },
    migrateStorage: args.migrateStorage,
    // Nothing here reads them back: the portal keeps its own cache.
    platformEvents: false,
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
      const health = operatorHealth(req.url, operator.conversionWebhook?.status());
      res.statusCode = health.status;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(health.body));
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
