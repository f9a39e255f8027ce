import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { ANNOTATION_MODEL_URL } from '../reconcile/inferenceChildren';
import { computeStatus, lastLogLine, volumeWaitReportableInMs, warmupDeadlineInMs, warmupTimeouts } from './computeStatus';

const NOW = '2026-12-03T00:00:00Z';

/** previous: the phase the platform had, or its whole status; deploymentReady: what the Deployment counts (its watch may lag the pods'). */
function world(pods: any[], previous?: string | object, deploymentReady?: number) {
  const p: any = sampleInferencePlatform('p', 'ns');
  p.metadata.generation = 1;
  if (previous) p.status = typeof previous === 'string' ? { phase: previous } : previous;
  p.spec.qdrant.replicas = 1;
  p.spec.inference.replicas = 2;
  const spec = withDefaults(p.spec);
  const ready = deploymentReady ?? pods.filter(x => x.ready).length;
  return computeStatus(p, spec, {
    statefulSet: { metadata: { generation: 1 }, status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: 'r', updateRevision: 'r' } },
    deployment: { metadata: { generation: 1 }, status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: ready } },
    qdrantPods: [],
    inferencePods: pods.map((x, i) => ({
      metadata: { name: `p-inference-${i}`, annotations: { [ANNOTATION_MODEL_URL]: spec.inference.modelUrl } },
      status: {
        conditions: [{ type: 'Ready', status: x.ready ? 'True' : 'False' }],
        containerStatuses: [x.ready ? { name: 'inference', ready: true, restartCount: 0, state: { running: {} } } : x.status],
      },
    })),
  }, NOW);
}

const crashLoop = {
  name: 'inference',
  ready: false,
  restartCount: 4,
  state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s restarting failed container' } },
  lastState: { terminated: { reason: 'Error', exitCode: 1, message: 'listening on :8080\nError: cannot open /models/model.onnx: no such file\n' } },
};
const inferenceCondition = (s: any) => s.conditions.find((c: any) => c.type === 'InferenceReady');

describe('computeStatus with a crash-looping inference container', () => {
  it('is Degraded while other servers answer, quoting the last exit', () => {
    const s = world([{ ready: true }, { ready: false, status: crashLoop }]);
    expect(s.phase).toBe('Degraded');
    expect(s.message).toBe(
      'pod p-inference-1: container inference is crash-looping after 4 restarts (Error, exit code 1: Error: cannot open /models/model.onnx: no such file)',
    );
    expect(inferenceCondition(s)).toMatchObject({ status: 'False', reason: 'ContainerCrashLooping' });
  });

  it('is Failed when no server answers, instead of Loading for ever', () => {
    const s = world([{ ready: false, status: crashLoop }, { ready: false, status: crashLoop }]);
    expect(s.phase).toBe('Failed');
    expect(s.conditions!.find(c => c.type === 'Ready')).toMatchObject({ status: 'False' });
  });

  it('is Failed when no server can start, quoting the kubelet (an image it cannot get)', () => {
    const noImage = {
      name: 'inference',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason: 'ErrImageNeverPull', message: 'Container image "example.com/nothing:1" is not present' } },
    };
    const s = world([{ ready: false, status: noImage }, { ready: false, status: noImage }]);
    expect(s.phase).toBe('Failed');
    expect(s.message).toBe('pod p-inference-0: container inference cannot start (ErrImageNeverPull): Container image "example.com/nothing:1" is not present');
  });

  it('is Loading, not crash-looping, while a server merely starts', () => {
    const starting = { name: 'inference', ready: false, restartCount: 0, state: { running: {} } };
    expect(world([{ ready: true }, { ready: false, status: starting }]).phase).toBe('Loading');
  });
});

describe('computeStatus when a serving platform loses a server', () => {
  const restarted = {
    name: 'inference',
    ready: false,
    restartCount: 1,
    state: { running: {} },
    lastState: { terminated: { reason: 'Error', exitCode: 137 } },
  };

  it('is Degraded, naming the pod and its last exit, not Loading', () => {
    const s = world([{ ready: true }, { ready: false, status: restarted }], 'Ready');
    expect(s.phase).toBe('Degraded');
    expect(s.message).toBe('inference 1/2 ready: pod p-inference-1 running, not ready, restarted 1x (last exit: Error, exit code 137)');
    expect(inferenceCondition(s)).toMatchObject({ status: 'False', reason: 'ServersNotReady' });
  });

  it('is Degraded when the pods tell of the loss before the Deployment does (a pass in between wrote Loading)', () => {
    // Ready (this world gives no Qdrant view, which Ready also waits for).
    const ready = { ...world([{ ready: true }, { ready: true }], 'Ready'), phase: 'Ready' };
    expect(inferenceCondition(ready)).toMatchObject({ status: 'True', reason: 'InferenceAvailable' });
    // The pod's watch event comes first: the Deployment still counts 2 ready,
    // one of which has not said which model it serves.
    const between = world([{ ready: true }, { ready: false, status: restarted }], ready, 2);
    expect(between.phase).toBe('Loading');
    const counted = world([{ ready: true }, { ready: false, status: restarted }], between);
    expect(counted.phase).toBe('Degraded');
    expect(counted.message).toBe('inference 1/2 ready: pod p-inference-1 running, not ready, restarted 1x (last exit: Error, exit code 137)');
  });

  it('is Failed when it lost every server', () => {
    expect(world([{ ready: false, status: restarted }, { ready: false, status: restarted }], 'Degraded').phase).toBe('Failed');
  });

  it('is Loading while the first servers start', () => {
    expect(world([{ ready: true }, { ready: false, status: restarted }], 'Loading').phase).toBe('Loading');
  });
});

describe('lastLogLine', () => {
  it('keeps the last line a person needs, and reads the service\'s JSON log lines', () => {
    expect(lastLogLine('starting\nError: no such file\n')).toBe('Error: no such file');
    expect(
      lastLogLine('{"level":"info","msg":"fetching"}\n{"level":"error","msg":"model download failed","error":"s3://m/x.onnx: NoSuchKey (HTTP 404)"}'),
    ).toBe('model download failed: s3://m/x.onnx: NoSuchKey (HTTP 404)');
    expect(lastLogLine('')).toBeUndefined();
  });
});

describe('computeStatus and data redundancy', () => {
  const statusFor = (qdrant: { replicas: number; replicationFactor?: number }) => {
    const p: any = sampleInferencePlatform('p', 'ns');
    p.metadata.generation = 1;
    p.spec.qdrant = { ...p.spec.qdrant, ...qdrant };
    const sts = { metadata: { generation: 1 }, status: { observedGeneration: 1, replicas: qdrant.replicas, readyReplicas: qdrant.replicas, updatedReplicas: qdrant.replicas } };
    return computeStatus(p, withDefaults(p.spec), { statefulSet: sts, qdrantPods: [], inferencePods: [] }, NOW);
  };
  const atRisk = (s: any) => s.conditions.find((c: any) => c.type === 'DataAtRisk');

  it('warns when several peers keep one copy of each shard', () => {
    expect(atRisk(statusFor({ replicas: 3, replicationFactor: 1 }))).toMatchObject({
      status: 'True',
      reason: 'ReplicationFactorOne',
      message: expect.stringContaining('set spec.qdrant.replicationFactor to 2 or more'),
    });
  });

  it('does not warn for the default on several peers (2) or for a single peer', () => {
    expect(withDefaults(sampleInferencePlatform('p', 'ns').spec).qdrant.replicationFactor).toBe(2);
    expect(atRisk(statusFor({ replicas: 3 }))).toBeUndefined();
    expect(atRisk(statusFor({ replicas: 1 }))).toBeUndefined();
  });
});

describe('computeStatus and GPUs', () => {
  const statusFor = (gpus: number, servers: Record<string, any>) => {
    const p: any = sampleInferencePlatform('p', 'ns');
    p.metadata.generation = 1;
    p.spec.inference.gpu = { count: gpus };
    return computeStatus(p, withDefaults(p.spec), { qdrantPods: [], inferencePods: [], inferenceServers: servers }, NOW);
  };
  const gpuUnused = (s: any) => s.conditions.find((c: any) => c.type === 'GPUUnused');
  const noCuda = 'onnxruntime could not load its CUDA provider: libcudart.so.12: cannot open shared object file';

  it('warns, naming the servers and the reason, when servers given GPUs run the model on the CPU', () => {
    const s = statusFor(1, {
      'p-inference-1': { executionProvider: 'cpu', fallbackReason: noCuda },
      'p-inference-0': { executionProvider: 'cpu', fallbackReason: noCuda },
      'p-inference-2': { executionProvider: 'cuda' },
    });
    expect(gpuUnused(s)).toMatchObject({
      status: 'True',
      reason: 'CudaUnavailable',
      message: `p-inference-0, p-inference-1 run the model on the CPU, their GPUs idle: CUDA is not usable (${noCuda})`,
    });
  });

  it('says nothing when CUDA runs, when no GPU was asked for, or when the servers were not asked', () => {
    expect(gpuUnused(statusFor(1, { 'p-inference-0': { executionProvider: 'cuda' } }))).toBeUndefined();
    expect(gpuUnused(statusFor(0, { 'p-inference-0': { executionProvider: 'cpu' } }))).toBeUndefined();
    expect(gpuUnused(statusFor(1, {}))).toBeUndefined();
  });
});

describe('computeStatus and Qdrant peers waiting for their volumes', () => {
  const waiting = (since: string) => ({
    metadata: { name: 'p-qdrant-0' },
    status: {
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          lastTransitionTime: since,
          message: '0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.',
        },
      ],
    },
  });
  const statusAt = (now: string, since: string) => {
    const p: any = sampleInferencePlatform('p', 'ns');
    p.metadata.generation = 1;
    p.spec.qdrant.replicas = 1;
    const sts = { metadata: { generation: 1 }, status: { observedGeneration: 1, replicas: 1, readyReplicas: 0 } };
    return computeStatus(p, withDefaults(p.spec), { statefulSet: sts, qdrantPods: [waiting(since)], inferencePods: [] }, now);
  };
  const qdrantReady = (s: any) => s.conditions.find((c: any) => c.type === 'QdrantReady');

  it('is an ordinary wait at first, said only once it lasts a minute', () => {
    const early = statusAt('2026-01-01T00:00:30Z', '2026-01-01T00:00:00Z');
    expect(qdrantReady(early)).toMatchObject({ reason: 'QdrantPeersNotReady', message: '0/1 Qdrant peers ready' });
    expect(early.phase).toBe('Pending');
    const late = statusAt('2026-01-01T00:01:00Z', '2026-01-01T00:00:00Z');
    expect(qdrantReady(late)).toMatchObject({
      reason: 'QdrantPeersNotReady',
      message: expect.stringContaining('pod p-qdrant-0 has waited since 2026-01-01T00:00:00Z for its volumes: 0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims'),
    });
    expect(volumeWaitReportableInMs([waiting('2026-01-01T00:00:00Z')], Date.parse('2026-01-01T00:00:45Z'))).toBe(15_000);
    expect(volumeWaitReportableInMs([waiting('2026-01-01T00:00:00Z')], Date.parse('2026-01-01T00:01:45Z'))).toBeUndefined();
  });
});

describe('warm-up', () => {
  const now = Date.parse('2026-12-04T12:10:00Z');
  const pod = (name: string, startedAt: string, ready: { status: string; at: string }) => ({
    metadata: { name },
    status: {
      conditions: [{ type: 'Ready', status: ready.status, lastTransitionTime: ready.at }],
      containerStatuses: [{ name: 'inference', ready: ready.status === 'True', restartCount: 0, state: { running: { startedAt } } }],
    },
  });
  it('names servers not ready since they started longer ago than the warm-up timeout, and when to look again', () => {
    const slow = pod('p-1', '2026-12-04T12:00:00Z', { status: 'False', at: '2026-12-04T11:59:58Z' });
    const starting = pod('p-2', '2026-12-04T12:09:00Z', { status: 'False', at: '2026-12-04T12:08:58Z' });
    // Served, then lost its readiness (Qdrant went away): not warming up.
    const served = pod('p-3', '2026-12-04T11:00:00Z', { status: 'False', at: '2026-12-04T12:05:00Z' });
    expect(warmupTimeouts([slow, starting, served], 300, now)).toBe(
      'pod p-1 started more than 300 s ago and is not ready (spec.inference.model.source.warmupTimeoutSeconds)',
    );
    expect(warmupTimeouts([starting, served], 300, now)).toBeUndefined();
    expect(warmupDeadlineInMs([starting, served], 300, now)).toBe(241_000);
  });
});

describe('computeStatus while the pod cache lags the Deployment', () => {
  function served(readyPodsSeen: number) {
    const p: any = sampleInferencePlatform('p', 'ns');
    p.metadata.generation = 1;
    p.spec.qdrant.replicas = 1;
    p.spec.inference.replicas = 2;
    const spec = withDefaults(p.spec);
    return computeStatus(
      p,
      spec,
      {
        statefulSet: {
          metadata: { name: 'p-qdrant', generation: 1 },
          status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: 'r', updateRevision: 'r' },
        },
        // The Deployment already counts both servers ready.
        deployment: { metadata: { generation: 1 }, status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } },
        qdrantPods: [],
        inferencePods: Array.from({ length: readyPodsSeen }, (_, i) => ({
          metadata: { name: `p-inference-${i}`, annotations: { [ANNOTATION_MODEL_URL]: spec.inference.modelUrl } },
          status: {
            conditions: [{ type: 'Ready', status: 'True' }],
            containerStatuses: [{ name: 'inference', ready: true, restartCount: 0, state: { running: {} } }],
          },
        })),
        qdrantCluster: { reachable: true, peerId: '1', raftLeader: '1', consensus: 'working', peers: [{ id: '1', uri: 'http://p-qdrant-0.p-qdrant-headless.ns.svc:6335/' }] },
      } as any,
      NOW,
    );
  }
  const conditionStatus = (s: any, type: string) => s.conditions.find((c: any) => c.type === type)?.status;

  it('is Ready once the pods it counts have said which model they serve', () => {
    const s = served(2);
    expect(s.phase).toBe('Ready');
    expect(conditionStatus(s, 'ModelLoaded')).toBe('True');
  });

  it('is not Ready while the Deployment counts servers the pod cache has not seen: their model is unknown', () => {
    for (const seen of [0, 1]) {
      const s = served(seen);
      expect({ seen, phase: s.phase }).toEqual({ seen, phase: 'Loading' });
      expect(conditionStatus(s, 'Ready')).toBe('False');
    }
  });
});
