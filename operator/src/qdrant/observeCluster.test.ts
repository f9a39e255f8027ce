import { ordinalOf } from './observeCluster';

describe('ordinalOf', () => {
  it("reads a StatefulSet pod's ordinal from the peer URI it announces", () => {
    expect(ordinalOf('http://p-qdrant-12.p-qdrant-headless.ns.svc:6335/', 'p-qdrant')).toBe(12);
    expect(ordinalOf('https://p-qdrant-0.h:6335/', 'p-qdrant')).toBe(0);
  });

  it('is undefined for any other URI', () => {
    expect(ordinalOf('http://p-qdrant-x.h:6335/', 'p-qdrant')).toBeUndefined();
    expect(ordinalOf('http://p-qdrant-1:6335/', 'p-qdrant')).toBeUndefined();
    expect(ordinalOf('http://other-1.h/', 'p-qdrant')).toBeUndefined();
    expect(ordinalOf('ftp://p-qdrant-1.h/', 'p-qdrant')).toBeUndefined();
    expect(ordinalOf('http://p-qdrant-headless-1.h/', 'p-qdrant')).toBeUndefined();
  });
});
