import { statefulSetRecreation } from './statefulSetRecreation';

const sts = (policy: string | undefined, storage: string, storageClassName?: string) => ({
  spec: {
    podManagementPolicy: policy,
    serviceName: 'p-qdrant-headless',
    selector: { matchLabels: { app: 'q' } },
    volumeClaimTemplates: [
      {
        metadata: { name: 'storage' },
        spec: { ...(storageClassName ? { storageClassName } : {}), resources: { requests: { storage } } },
      },
    ],
  },
});

describe('statefulSetRecreation', () => {
  it('needs nothing when only mutable fields differ, or quantities are spelt differently', () => {
    expect(statefulSetRecreation(sts('Parallel', '10Gi'), sts('Parallel', '10240Mi'))).toBeUndefined();
    expect(statefulSetRecreation(sts('Parallel', '10Gi'), undefined)).toBeUndefined();
    const reordered = sts('Parallel', '10Gi');
    reordered.spec.selector.matchLabels = { b: '2', a: '1' } as any;
    const live = sts('Parallel', '10Gi');
    live.spec.selector.matchLabels = { a: '1', b: '2' } as any;
    expect(statefulSetRecreation(reordered, live)).toBeUndefined();
  });

  it('re-creates for a new pod management policy (the API server defaults it to OrderedReady)', () => {
    expect(statefulSetRecreation(sts('Parallel', '10Gi'), sts(undefined, '10Gi'))?.reason).toBe(
      'podManagementPolicy OrderedReady -> Parallel',
    );
  });

  it('re-creates for a larger volume and names the templates to expand', () => {
    expect(statefulSetRecreation(sts('Parallel', '20Gi'), sts('Parallel', '10Gi'))).toEqual({
      reason: `volume claim template storage: storage ${10 * 2 ** 30} -> ${20 * 2 ** 30} bytes`,
      grown: [{ template: 'storage', storage: '20Gi' }],
    });
  });

  it('re-creates for a storage class change, expanding nothing', () => {
    const r = statefulSetRecreation(sts('Parallel', '10Gi', 'fast'), sts('Parallel', '10Gi', 'gp2'));
    expect(r).toEqual({ reason: 'volume claim template storage: storageClassName gp2 -> fast', grown: [] });
  });
});
