import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { QdrantGet } from './QdrantAdminClient';

/**
 * Reaches a Service's Qdrant through the API server's service proxy
 * (`/api/v1/namespaces/NS/services/http:NAME:PORT/proxy/...`): an operator
 * running outside the cluster (the portal's embedded operator on a laptop,
 * `npm run dev`) cannot resolve `<svc>.<ns>.svc`, but it can always reach the
 * API server. Needs `get` on `services/proxy`.
 */
export function apiServerProxyGet(client: KubeClient): QdrantGet {
  return async (url, headers, timeoutMs) => {
    const u = new URL(url);
    const [svc, ns] = u.hostname.split('.');
    const path = `/api/v1/namespaces/${ns}/services/http:${svc}:${u.port || '80'}/proxy${u.pathname}${u.search}`;
    try {
      const body = await client.request('GET', path, undefined, undefined, AbortSignal.timeout(timeoutMs), headers);
      return { status: 200, body };
    } catch (e) {
      if (e instanceof KubeApiError) return { status: e.statusCode, body: e.body };
      throw e;
    }
  };
}
