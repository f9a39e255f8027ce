import http from 'node:http';
import { AddressInfo } from 'node:net';
import { QdrantClusterDouble, closeServer } from '@cv-platform/local-cluster';

/** The p2p URI a platform's Qdrant peer announces from its pod, as Raft lists it. */
export const podPeerUri = (namespace: string, name: string, pod: string) => `http://${pod}.${name}-qdrant-headless.${namespace}.svc:6335/`;

/**
 * One Qdrant cluster double per platform, all on one HTTP server
 * (`/c/<namespace>/<name>/peer/<id>/...`), created as the operator first asks
 * for them: a peer joins its cluster when the operator first asks its pod,
 * as a started pod bootstraps into the cluster.
 */
export class QdrantFleetDouble {
  private readonly clusters = new Map<string, QdrantClusterDouble>();
  private server?: http.Server;
  private base = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fleet');
      const m = /^\/c\/([^/]+)\/([^/]+)(\/.*)$/.exec(url.pathname);
      const cluster = m && this.clusters.get(`${m[1]}/${m[2]}`);
      // The Service: a member that answers (none: connection refused).
      const service = cluster && /^\/service(\/.*)?$/.exec(m![3]);
      const endpoint = service && cluster.serviceEndpoint();
      if (!cluster || (service && !endpoint)) {
        req.socket.destroy();
        return;
      }
      cluster.handle(req, res, service ? `/peer/${endpoint!.id}${service[1] ?? '/'}${url.search}` : `${m![3]}${url.search}`);
    });
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The cluster of a platform (created empty on first use). */
  cluster(namespace: string, name: string): QdrantClusterDouble {
    const key = `${namespace}/${name}`;
    let c = this.clusters.get(key);
    if (!c) {
      c = new QdrantClusterDouble();
      c.baseUrl = `${this.base}/c/${namespace}/${name}`;
      this.clusters.set(key, c);
    }
    return c;
  }

  /** The operator's `qdrantPeerUrl`: the pod's peer, joining the cluster if it is new. */
  readonly peerUrl = (p: { metadata: { name?: string; namespace?: string } }, pod: string): string => {
    const { name, namespace } = p.metadata;
    const cluster = this.cluster(namespace!, name!);
    return cluster.urlOf(cluster.peerFor(podPeerUri(namespace!, name!, pod)));
  };

  /** The platform's cluster with the peers of pods 0..count-1 joined, as their started pods would. */
  clusterWithPeers(namespace: string, name: string, count: number): QdrantClusterDouble {
    const cluster = this.cluster(namespace, name);
    for (let i = 0; i < count; i++) cluster.peerFor(podPeerUri(namespace, name, `${name}-qdrant-${i}`));
    return cluster;
  }

  /** The operator's `qdrantUrl`: the platform's Service, answered by its first live member. */
  readonly serviceUrl = (p: { metadata: { name?: string; namespace?: string } }): string => {
    this.cluster(p.metadata.namespace!, p.metadata.name!);
    return `${this.base}/c/${p.metadata.namespace}/${p.metadata.name}/service`;
  };

  /** Operator options that reach Qdrant through this fleet only. */
  get options(): { qdrantUrl: (p: any) => string; qdrantPeerUrl: (p: any, pod: string) => string } {
    return { qdrantUrl: this.serviceUrl, qdrantPeerUrl: this.peerUrl };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await closeServer(server);
  }
}
