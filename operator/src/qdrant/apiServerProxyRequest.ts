import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { QdrantDownload, QdrantRequest } from './QdrantPeerClient';

/** The API server's proxy path of a pod's or Service's cluster URL. */
function proxyPath(url: string): string {
  const u = new URL(url);
  const labels = u.hostname.split('.');
  const port = u.port || '80';
  const target =
    labels.length >= 4
      ? `/api/v1/namespaces/${labels[2]}/pods/http:${labels[0]}:${port}`
      : `/api/v1/namespaces/${labels[1]}/services/http:${labels[0]}:${port}`;
  return `${target}/proxy${u.pathname}${u.search}`;
}

/**
 * Streams a file (a snapshot) from a peer through the API server's pod proxy.
 *
 * @public
 */
export function apiServerProxyDownload(client: KubeClient): QdrantDownload {
  return async ({ url, headers, signal }) => {
    try {
      return await client.download(proxyPath(url), signal, headers);
    } catch (e) {
      if (e instanceof KubeApiError) throw new Error(`GET ${new URL(url).pathname} answered ${e.statusCode}: ${String(e.body).slice(0, 300)}`);
      throw e;
    }
  };
}

/**
 * Reaches Qdrant through the API server's proxies, for an operator outside
 * the cluster (the portal's embedded operator on a laptop, `npm run dev`),
 * which cannot resolve cluster DNS but can always reach the API server:
 * `http://<svc>.<ns>.svc:<port>` through the service proxy (needs `get` on
 * `services/proxy`), one peer's `http://<pod>.<headless>.<ns>.svc:<port>`
 * through the pod proxy (needs `get`, `create` and `delete` on `pods/proxy`).
 *
 * @public
 */
export function apiServerProxyRequest(client: KubeClient): QdrantRequest {
  return async ({ method, url, body, headers, timeoutMs }) => {
    try {
      const answer = await client.request(method, proxyPath(url), body, 'application/json', AbortSignal.timeout(timeoutMs), headers, timeoutMs);
      return { status: 200, body: answer };
    } catch (e) {
      if (e instanceof KubeApiError) return { status: e.statusCode, body: e.body };
      throw e;
    }
  };
}
