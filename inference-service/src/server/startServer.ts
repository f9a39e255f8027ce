import http from 'node:http';
import { AddressInfo } from 'node:net';
import { ServiceConfig } from '../config/loadConfig';
import { createLogger, Logger } from './createLogger';
import { createService, Service, ServiceOverrides } from './createService';

export interface RunningServer {
  service: Service;
  server: http.Server;
  port: number;
  /**
   * Stops: first `drainMs` of saying not ready while still serving (the
   * Service's endpoints and every node's proxy rules drop this pod
   * meanwhile; new connections until then still get answers), then no new
   * connections, in-flight requests finish, the service closes.
   */
  stop(drainMs?: number): Promise<void>;
}

/** Creates the service and listens; the model loads in the background. */
export async function startServer(
  config: ServiceConfig,
  overrides: ServiceOverrides & { log?: Logger } = {},
): Promise<RunningServer> {
  const log = overrides.log ?? createLogger();
  const service = createService(config, { ...overrides, log });
  const server = http.createServer(service.app);
  // Keep-alive longer than typical load balancer idle timeouts (60 s), so
  // the proxy, not us, closes idle connections.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  log('info', 'listening', {
    port,
    host: config.host,
    model: config.modelUrl ? 'configured' : 'none',
  });
  let stopping: Promise<void> | undefined;
  return {
    service,
    server,
    port,
    stop(drainMs = 0) {
      stopping ??= (async () => {
        if (drainMs > 0) {
          service.beginShutdown();
          // Every answer from now on closes its connection: a client's
          // keep-alive socket to this pod would otherwise outlive the pod's
          // place behind the Service and meet the final close mid-request.
          server.prependListener('request', (_req, res) =>
            res.setHeader('Connection', 'close'),
          );
          log('info', 'draining before shutdown', { drainMs });
          await new Promise(resolve => setTimeout(resolve, drainMs));
        }
        await new Promise<void>(resolve => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await service.close();
      })();
      return stopping;
    },
  };
}
