import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { QdrantRequest } from './QdrantPeerClient';

/**
 * Reaches one Qdrant peer through the API server's pod proxy
 * (`/api/v1/namespaces/NS/pods/http:POD:PORT/proxy/...`), for an operator
 * outside the cluster. Peer URLs are `http://<pod>.<headless>.<ns>.svc:<port>`.
 * Needs `get` and `create` on `pods/proxy` (and `delete` for peer removal).
 */
export function apiServerProxyRequest(client: KubeClient): QdrantRequest {
  return async ({ method, url, body, headers, timeoutMs }) => {
    const u = new URL(url);
    const [pod, , ns] = u.hostname.split('.');
    const path = `/api/v1/namespaces/${ns}/pods/http:${pod}:${u.port || '80'}/proxy${u.pathname}${u.search}`;
    try {
      const answer = await client.request(method, path, body, 'application/json', AbortSignal.timeout(timeoutMs), headers);
      return { status: 200, body: answer };
    } catch (e) {
      if (e instanceof KubeApiError) return { status: e.statusCode, body: e.body };
      throw e;
    }
  };
}
