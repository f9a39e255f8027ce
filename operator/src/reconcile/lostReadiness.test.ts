import { lostReadiness } from './lostReadiness';

const pod = (ready: boolean, restartCount = 0) => ({
  kind: 'Pod',
  status: {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    containerStatuses: [{ name: 'inference', restartCount }],
  },
});
const sts = (readyReplicas?: number) => ({ kind: 'StatefulSet', status: { readyReplicas } });

describe('lostReadiness', () => {
  it('is bad news when something is deleted, a pod stops being Ready or restarts, or a workload counts fewer ready replicas', () => {
    expect(lostReadiness('DELETED', pod(true))).toBe(true);
    expect(lostReadiness('MODIFIED', pod(false), pod(true))).toBe(true);
    expect(lostReadiness('MODIFIED', pod(true, 1), pod(true, 0))).toBe(true);
    expect(lostReadiness('MODIFIED', sts(1), sts(2))).toBe(true);
    // The container stopped; the pod's Ready condition has not caught up yet.
    const running = { kind: 'Pod', status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'inference', ready: true, state: { running: {} } }] } };
    const stopped = { kind: 'Pod', status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'inference', ready: false, state: { terminated: { exitCode: 137 } } }] } };
    expect(lostReadiness('MODIFIED', stopped, running)).toBe(true);
    expect(lostReadiness('MODIFIED', running, stopped)).toBe(false);
    expect(lostReadiness('MODIFIED', sts(undefined), sts(1))).toBe(true);
  });

  it('is not for progress: a new object, a pod becoming Ready, more ready replicas', () => {
    expect(lostReadiness('ADDED', pod(false))).toBe(false);
    expect(lostReadiness('MODIFIED', pod(true), pod(false))).toBe(false);
    expect(lostReadiness('MODIFIED', pod(false), pod(false))).toBe(false);
    expect(lostReadiness('MODIFIED', sts(2), sts(1))).toBe(false);
    expect(lostReadiness('MODIFIED', sts(undefined), sts(undefined))).toBe(false);
  });
});
