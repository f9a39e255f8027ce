import { createTestNamespace, deleteTestNamespace, eventually, testApi, testQdrantUrlTemplates } from '../testCluster';
import { announcedUri } from './SimulatedQdrant';

jest.setTimeout(120_000);

const api = testApi();
let ns: string;
beforeEach(async () => {
  ns = await createTestNamespace(api, 'sq');
});
afterEach(async () => {
  await deleteTestNamespace(api, ns);
});

/** A StatefulSet shaped like the operator's Qdrant tier: peer 0 bootstraps, the rest join, each announcing its --uri. */
function qdrantStatefulSet(name: string, replicas: number) {
  const uri = (host: string) => `http://${host}.${name}-headless.${ns}.svc:6335`;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      serviceName: `${name}-headless`,
      // One pod after the other: peer 0 turns ready first and bootstraps the cluster (leads).
      podManagementPolicy: 'OrderedReady',
      selector: { matchLabels: { 'app.kubernetes.io/name': 'qdrant', 'app.kubernetes.io/instance': name } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'qdrant', 'app.kubernetes.io/instance': name } },
        spec: {
          containers: [
            {
              name: 'qdrant',
              image: 'qdrant/qdrant:v1.14.1',
              command: ['/bin/sh', '-c', `exec ./entrypoint.sh --bootstrap "${uri(`${name}-0`)}" --uri "${uri('${HOSTNAME}')}"`],
            },
          ],
        },
      },
    },
  };
}

const url = (template: string, fill: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, k) => fill[k]);

async function getJson(u: string): Promise<any | undefined> {
  try {
    const res = await fetch(u);
    return res.ok ? await res.json() : undefined;
  } catch {
    return undefined;
  }
}

describe('simulated Qdrant for the simulated nodes', () => {
  it('answers for each ready Qdrant pod as a peer of its StatefulSet cluster, and stops when the pod goes', async () => {
    const { qdrantUrlTemplate, qdrantPeerUrlTemplate } = testQdrantUrlTemplates();
    await api.apply(qdrantStatefulSet('vec', 3));
    const service = url(qdrantUrlTemplate, { namespace: ns, statefulSet: 'vec' });
    const cluster = await eventually('three peers in Raft', async () => {
      const c = await getJson(`${service}/cluster`);
      return Object.keys(c?.result?.peers ?? {}).length === 3 ? c.result : undefined;
    });
    expect(cluster).toMatchObject({ status: 'enabled', raft_info: { role: 'Leader', is_voter: true } });
    const uris = Object.values(cluster.peers).map((p: any) => p.uri).sort();
    expect(uris).toEqual([0, 1, 2].map(i => `http://vec-${i}.vec-headless.${ns}.svc:6335/`));

    // Each pod answers as its own peer, announcing its own URI.
    const peer2 = url(qdrantPeerUrlTemplate, { namespace: ns, pod: 'vec-2' });
    const own = (await getJson(`${peer2}/cluster`)).result;
    expect(own.peers[own.peer_id].uri).toBe(`http://vec-2.vec-headless.${ns}.svc:6335/`);

    // The pod goes (KWOK's StatefulSet brings it back, the same peer).
    await api.request('DELETE', `/api/v1/namespaces/${ns}/pods/vec-2?gracePeriodSeconds=0`);
    await eventually('the same peer back', async () => {
      const again = await getJson(`${peer2}/cluster`);
      return again?.result.peer_id === own.peer_id ? again : undefined;
    });

    // Scaled to zero, nothing answers: the connection is refused, as by a Service without endpoints.
    await api.request('PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/vec`, { spec: { replicas: 0 } }, 'application/merge-patch+json');
    await eventually('no answer', async () => (await fetch(`${service}/cluster`).then(() => false, () => true)) || undefined);
  });

  it('reads the URI a pod announces from its command line', () => {
    const pod = {
      metadata: { name: 'p-qdrant-1' },
      spec: { containers: [{ name: 'qdrant', image: 'qdrant/qdrant:v1.14.1', command: ['/bin/sh', '-c', 'exec ./entrypoint.sh --uri "http://${HOSTNAME}.h.ns.svc:6335"'] }] },
    } as any;
    expect(announcedUri(pod)).toBe('http://p-qdrant-1.h.ns.svc:6335/');
    expect(announcedUri({ ...pod, spec: { containers: [{ ...pod.spec.containers[0], command: ['qdrant'] }] } })).toBeUndefined();
  });
});
