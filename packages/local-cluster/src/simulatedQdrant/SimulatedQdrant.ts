import http from 'node:http';
import { AddressInfo } from 'node:net';
import * as k8s from '@kubernetes/client-node';
import { QdrantClusterDouble, closeServer } from './QdrantClusterDouble';

/** Qdrant pods, by the label Qdrant's own Helm chart and the operator give them. */
const QDRANT_POD_SELECTOR = 'app.kubernetes.io/name=qdrant';

/**
 * Qdrant for the simulated nodes: KWOK runs no containers, so nothing would
 * answer a simulated Qdrant pod's REST API. This watches pods that run a
 * `qdrant/qdrant` image on a simulated node and keeps one Qdrant cluster
 * double per StatefulSet in step with them: a pod that turns ready joins
 * (announcing the `--uri` its command line gives, as Qdrant does; the first
 * bootstraps and leads), a pod that goes away or turns unready stops
 * answering, and the same pod back (same name, same volume) is the same peer.
 *
 * It answers on loopback, where the operator is pointed with URL templates
 * (`serviceUrlTemplate`, `peerUrlTemplate`): a StatefulSet's Service forwards
 * to its first answering peer, a pod's URL to that pod's peer.
 */
export class SimulatedQdrant {
  private readonly clusters = new Map<string, QdrantClusterDouble>();
  /** "namespace/pod" -> where its peer lives. */
  private readonly pods = new Map<string, { cluster: string; uri: string }>();
  private server?: http.Server;
  private informer?: k8s.Informer<k8s.V1Pod>;
  private stopped = false;
  private base = '';

  constructor(
    private readonly kubeconfigPath: string,
    /** Nodes whose pods are real processes (they run real Qdrant or its stand-in). */
    private readonly realNodes: string[] = [],
  ) {}

  get serviceUrlTemplate(): string {
    return `${this.base}/namespaces/{namespace}/statefulsets/{statefulSet}`;
  }

  get peerUrlTemplate(): string {
    return `${this.base}/namespaces/{namespace}/pods/{pod}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.route(req, res));
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces({ labelSelector: QDRANT_POD_SELECTOR }), QDRANT_POD_SELECTOR);
    informer.on('add', pod => this.observe(pod));
    informer.on('update', pod => this.observe(pod));
    informer.on('delete', pod => this.gone(pod));
    // The informer stops on a failed list or watch; start it again, as a controller would.
    informer.on('error', () => {
      if (!this.stopped) setTimeout(() => !this.stopped && void informer.start().catch(() => undefined), 1000);
    });
    this.informer = informer;
    await informer.start();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer?.stop();
    const server = this.server;
    this.server = undefined;
    await closeServer(server);
  }

  /** The cluster of a StatefulSet (for looking at what a test did). */
  cluster(namespace: string, statefulSet: string): QdrantClusterDouble | undefined {
    return this.clusters.get(`${namespace}/${statefulSet}`);
  }

  private observe(pod: k8s.V1Pod) {
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    const sts = pod.metadata?.ownerReferences?.find(o => o.kind === 'StatefulSet')?.name;
    const uri = announcedUri(pod);
    if (!sts || !uri || !pod.spec?.nodeName || this.realNodes.includes(pod.spec.nodeName) || !runsQdrant(pod)) return;
    const clusterKey = `${pod.metadata!.namespace}/${sts}`;
    let cluster = this.clusters.get(clusterKey);
    if (!cluster) {
      cluster = new QdrantClusterDouble();
      cluster.baseUrl = `${this.base}/namespaces/${pod.metadata!.namespace}`;
      this.clusters.set(clusterKey, cluster);
    }
    this.pods.set(key, { cluster: clusterKey, uri });
    const ready = !pod.metadata?.deletionTimestamp && pod.status?.conditions?.some(c => c.type === 'Ready' && c.status === 'True');
    const peer = cluster.peers.find(p => p.uri === uri && !p.removed);
    if (ready && !peer) cluster.addPeer(uri);
    else if (ready && peer && !peer.up) cluster.revive(peer.id);
    else if (!ready && peer?.up) cluster.kill(peer.id);
  }

  private gone(pod: k8s.V1Pod) {
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    const known = this.pods.get(key);
    this.pods.delete(key);
    const cluster = known && this.clusters.get(known.cluster);
    const peer = cluster?.peers.find(p => p.uri === known!.uri && !p.removed && p.up);
    // The cluster stays while its pods are gone: the same pods back (volumes kept) are the same peers.
    if (peer) cluster!.kill(peer.id);
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://simulated-qdrant');
    const m = /^\/namespaces\/([^/]+)\/(statefulsets|pods)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    let target: { cluster: QdrantClusterDouble; peer: number } | undefined;
    if (m?.[2] === 'statefulsets') {
      const cluster = this.clusters.get(`${m[1]}/${m[3]}`);
      const peer = cluster?.serviceEndpoint();
      if (cluster && peer) target = { cluster, peer: peer.id };
    } else if (m) {
      const known = this.pods.get(`${m[1]}/${m[3]}`);
      const cluster = known && this.clusters.get(known.cluster);
      const peer = cluster && [...cluster.peers].reverse().find(p => p.uri === known!.uri);
      if (cluster && peer) target = { cluster, peer: peer.id };
    }
    if (!target) {
      // No endpoint: the connection is refused, as by a Service without ready pods.
      req.socket.destroy();
      return;
    }
    target.cluster.handle(req, res, `/peer/${target.peer}${m![4] ?? '/'}${url.search}`);
  }
}

function runsQdrant(pod: k8s.V1Pod): boolean {
  return (pod.spec?.containers ?? []).some(c => /^(docker\.io\/)?qdrant\/qdrant(:|@|$)/.test(c.image ?? ''));
}

/**
 * The `--uri` the pod's Qdrant would announce: from its command line, with
 * `${HOSTNAME}`/`$(POD_NAME)`-style references to the pod's own name filled in.
 */
export function announcedUri(pod: k8s.V1Pod): string | undefined {
  const container = (pod.spec?.containers ?? []).find(c => /qdrant\/qdrant/.test(c.image ?? ''));
  const line = [...(container?.command ?? []), ...(container?.args ?? [])].join(' ');
  const m = /--uri[= ]"?([^"\s]+)"?/.exec(line);
  if (!m) return undefined;
  const host = pod.spec?.hostname ?? pod.metadata?.name ?? '';
  const uri = m[1].replace(/\$\{HOSTNAME\}|\$HOSTNAME\b|\$\(POD_NAME\)/g, host);
  return uri.endsWith('/') ? uri : `${uri}/`;
}
