import { InferenceServerStates } from './InferenceServerStates';

const pod = (name: string, opts: { ready?: boolean; restarts?: number; uid?: string } = {}) => ({
  metadata: { name, namespace: 'ns', uid: opts.uid ?? `uid-${name}` },
  status: {
    podIP: '10.244.0.9',
    conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
    containerStatuses: [{ name: 'inference', restartCount: opts.restarts ?? 0 }],
  },
});

const settle = () => new Promise(r => setImmediate(r));

describe('InferenceServerStates', () => {
  it('asks each ready server once, then again after the TTL or when its container restarted', async () => {
    let now = 0;
    const asked: string[] = [];
    const changed: string[] = [];
    let answer: any = { ready: true, model: { version: 'v1', executionProvider: 'cpu', fallbackReason: 'libcudart.so.12: cannot open shared object file' } };
    const states = new InferenceServerStates({
      read: async p => {
        asked.push(p.metadata.name);
        return answer;
      },
      ttlMs: 1000,
      changed: key => changed.push(key),
      now: () => now,
    });

    expect(states.of('ns/p', [pod('a'), pod('b', { ready: false })], 8080)).toEqual({});
    await settle();
    expect(asked).toEqual(['a']);
    expect(changed).toEqual(['ns/p']);
    expect(states.of('ns/p', [pod('a')], 8080)).toEqual({
      a: { modelVersion: 'v1', executionProvider: 'cpu', fallbackReason: 'libcudart.so.12: cannot open shared object file' },
    });
    await settle();
    expect(asked).toEqual(['a']);

    // After the TTL: asked again; the same answer queues nothing.
    now = 1000;
    states.of('ns/p', [pod('a')], 8080);
    await settle();
    expect(asked).toEqual(['a', 'a']);
    expect(changed).toEqual(['ns/p']);

    // A restarted container is another server: asked at once, its old answer not reused.
    answer = { ready: true, model: { version: 'v1', executionProvider: 'cuda' } };
    expect(states.of('ns/p', [pod('a', { restarts: 1 })], 8080)).toEqual({});
    await settle();
    expect(asked).toEqual(['a', 'a', 'a']);
    expect(changed).toEqual(['ns/p', 'ns/p']);
    expect(states.of('ns/p', [pod('a', { restarts: 1 })], 8080)).toEqual({ a: { modelVersion: 'v1', executionProvider: 'cuda' } });
  });

  it('leaves out servers that do not answer or answer something else', async () => {
    const states = new InferenceServerStates({
      read: async p => {
        if (p.metadata.name === 'down') throw new Error('connect ECONNREFUSED');
        return 'ok';
      },
      ttlMs: 1000,
      changed: () => undefined,
    });
    states.of('ns/p', [pod('down'), pod('plain')], 8080);
    await settle();
    expect(states.of('ns/p', [pod('down'), pod('plain')], 8080)).toEqual({});
  });
});
