import { stableClusterInfo } from './stableClusterInfo';

const dns = { reachable: false, message: 'GET http://a-qdrant.ns.svc:6333/cluster failed: fetch failed (ENOTFOUND)' };
const timeout = {
  reachable: false,
  message: 'GET http://a-qdrant.ns.svc:6333/cluster failed: The operation was aborted due to timeout (TimeoutError)',
};
const unauthorized = { reachable: false, message: 'GET /cluster answered 401 Unauthorized' };
const forbidden = { reachable: false, message: 'GET /cluster answered 403 Forbidden' };
const up = { reachable: true, peerId: '1', peers: [{ id: '1', uri: 'http://a-0:6335' }], raftLeader: '1', raftTerm: 2, pendingOperations: 0 };

describe('stableClusterInfo', () => {
  it('keeps the first message while the network failure only changes its cause', () => {
    expect(stableClusterInfo(dns, timeout)).toBe(dns);
    expect(stableClusterInfo(timeout, dns)).toBe(timeout);
  });

  it('takes a different kind of failure, a recovery and every reachable answer', () => {
    expect(stableClusterInfo(dns, unauthorized)).toBe(unauthorized);
    expect(stableClusterInfo(unauthorized, forbidden)).toBe(forbidden);
    expect(stableClusterInfo(unauthorized, dns)).toBe(dns);
    expect(stableClusterInfo(dns, up)).toBe(up);
    expect(stableClusterInfo(up, dns)).toBe(dns);
    const newLeader = { ...up, raftLeader: '2', raftTerm: 3 };
    expect(stableClusterInfo(up, newLeader)).toBe(newLeader);
    expect(stableClusterInfo(undefined, dns)).toBe(dns);
  });
});
