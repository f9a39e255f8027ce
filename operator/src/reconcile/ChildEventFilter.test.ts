import { ChildEventFilter } from './ChildEventFilter';

const pvc = (rv: string, phase = 'Pending') => ({
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'storage-a-qdrant-0', namespace: 'ns', resourceVersion: rv, labels: { 'cv.platform.tech/platform': 'a' } },
  status: { phase },
});
const sts = (rv: string, replicas: number, ready?: number) => ({
  kind: 'StatefulSet',
  metadata: { name: 'a-qdrant', namespace: 'ns', resourceVersion: rv },
  spec: { replicas },
  status: ready === undefined ? {} : { readyReplicas: ready },
});

describe('ChildEventFilter', () => {
  it('skips the event of the version our own apply produced, once', () => {
    const f = new ChildEventFilter();
    f.wrote('sts', '10');
    expect(f.needsPass('sts', 'ADDED', sts('10', 1))).toBe(false);
    // The StatefulSet controller's status change that follows is news.
    expect(f.needsPass('sts', 'MODIFIED', sts('11', 1, 0), sts('10', 1))).toBe(true);
  });

  it('passes on anyone else’s version, and forgets our write once any event arrived', () => {
    const f = new ChildEventFilter();
    f.wrote('sts', '10');
    // Someone wrote after us before our event arrived: their version is news.
    expect(f.needsPass('sts', 'MODIFIED', sts('12', 5), sts('9', 1))).toBe(true);
    // Our write's answer came after its own event: the late entry does not hide the next change.
    const g = new ChildEventFilter();
    expect(g.needsPass('sts', 'MODIFIED', sts('10', 3), sts('9', 1))).toBe(true);
    g.wrote('sts', '10');
    expect(g.needsPass('sts', 'MODIFIED', sts('11', 3, 1), sts('10', 3))).toBe(true);
    expect(g.needsPass('sts', 'MODIFIED', sts('12', 3, 2), sts('11', 3, 1))).toBe(true);
  });

  it('skips a change the cache cannot see (only the resourceVersion differs), not a real one', () => {
    const f = new ChildEventFilter();
    expect(f.needsPass('pvc', 'MODIFIED', pvc('2'), pvc('1'))).toBe(false);
    expect(f.needsPass('pvc', 'MODIFIED', pvc('3', 'Bound'), pvc('2'))).toBe(true);
    expect(f.needsPass('pvc', 'ADDED', pvc('1'))).toBe(true);
    // A field that appears, or one that goes, is a change.
    const labelled = { ...pvc('4'), metadata: { ...pvc('4').metadata, annotations: { x: 'y' } } };
    expect(f.needsPass('pvc', 'MODIFIED', labelled, pvc('3'))).toBe(true);
    expect(f.needsPass('pvc', 'MODIFIED', pvc('5'), labelled)).toBe(true);
  });

  it('always passes on a deletion, ours included', () => {
    const f = new ChildEventFilter();
    f.wrote('sts', '10');
    expect(f.needsPass('sts', 'DELETED', sts('10', 1))).toBe(true);
  });
});
