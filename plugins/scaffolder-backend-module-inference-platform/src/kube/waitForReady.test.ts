import { InferencePlatformV1beta1 } from '@cv-platform/inference-platform-api';
import { describeProgress, waitForReady } from './waitForReady';

function platform(
  generation: number,
  status?: InferencePlatformV1beta1['status'],
): InferencePlatformV1beta1 {
  return {
    apiVersion: 'cv.platform.tech/v1beta1',
    kind: 'InferencePlatform',
    metadata: { name: 'vision', namespace: 'ml', generation },
    spec: {
      qdrant: { version: 'v1.14.1' },
      inference: { model: { url: 's3://m/model.onnx' }, image: 'img' },
    },
    status,
  };
}

/** A read() that walks through the given states, then repeats the last. */
function sequence(states: Array<InferencePlatformV1beta1 | undefined>) {
  let i = 0;
  return async () => states[Math.min(i++, states.length - 1)];
}

describe('describeProgress', () => {
  it('says when the operator has not picked the platform up', () => {
    expect(describeProgress(platform(1))).toBe(
      'waiting for the operator to pick it up',
    );
  });

  it('names phase, readiness, message and a stale generation', () => {
    expect(
      describeProgress(
        platform(2, {
          phase: 'Loading',
          observedGeneration: 1,
          qdrantReadiness: '1/3',
          inferenceReadiness: '0/2',
          message: 'waiting for Qdrant',
        }),
      ),
    ).toBe(
      'phase Loading [Qdrant 1/3, inference 0/2]: waiting for Qdrant (operator has not seen the latest spec yet)',
    );
  });
});

describe('waitForReady', () => {
  const loading = (q: string) =>
    platform(1, {
      phase: 'Loading',
      observedGeneration: 1,
      qdrantReadiness: q,
    });
  const ready = platform(1, {
    phase: 'Ready',
    observedGeneration: 1,
    qdrantReadiness: '3/3',
  });

  it('logs each change once and a recurring state again', async () => {
    const log: string[] = [];
    const result = await waitForReady({
      read: sequence([
        platform(1),
        loading('1/3'),
        loading('1/3'),
        loading('2/3'),
        loading('1/3'),
        ready,
      ]),
      timeoutMs: 10_000,
      intervalMs: 0,
      log: l => log.push(l),
    });
    expect(result).toBe(ready);
    expect(log).toEqual([
      'waiting for the operator to pick it up',
      'phase Loading [Qdrant 1/3]',
      'phase Loading [Qdrant 2/3]',
      'phase Loading [Qdrant 1/3]',
      'phase Ready [Qdrant 3/3]',
    ]);
  });

  it('does not accept a Ready written for an older generation', async () => {
    const staleReady = platform(2, { phase: 'Ready', observedGeneration: 1 });
    const freshReady = platform(2, { phase: 'Ready', observedGeneration: 2 });
    const log: string[] = [];
    const result = await waitForReady({
      read: sequence([staleReady, freshReady]),
      timeoutMs: 10_000,
      intervalMs: 0,
      log: l => log.push(l),
    });
    expect(result).toBe(freshReady);
    expect(log[0]).toMatch(/not seen the latest spec/);
  });

  it('gives up on a Failed phase that outlasts the grace period', async () => {
    const failed = platform(1, {
      phase: 'Failed',
      observedGeneration: 1,
      message: 'model download failed: ENOTFOUND',
    });
    await expect(
      waitForReady({
        read: sequence([failed]),
        timeoutMs: 10_000,
        intervalMs: 1,
        failedGraceMs: 5,
        log: () => {},
      }),
    ).rejects.toThrow('the platform failed: model download failed: ENOTFOUND');
  });

  it('keeps waiting through a transient Failed phase', async () => {
    const failed = platform(1, { phase: 'Failed', observedGeneration: 1 });
    await expect(
      waitForReady({
        read: sequence([failed, loading('3/3'), ready]),
        timeoutMs: 10_000,
        intervalMs: 0,
        failedGraceMs: 60_000,
        log: () => {},
      }),
    ).resolves.toBe(ready);
  });

  it('retries reads that fail transiently (a dropped connection, a 503) and says so once', async () => {
    const dropped = Object.assign(new Error('socket hang up'), {
      code: 'ECONNRESET',
    });
    const unavailable = Object.assign(new Error('GET ...: 503'), {
      statusCode: 503,
    });
    const outcomes: Array<Error | InferencePlatformV1beta1> = [
      loading('1/3'),
      dropped,
      dropped,
      unavailable,
      ready,
    ];
    let i = 0;
    const log: string[] = [];
    const result = await waitForReady({
      read: async () => {
        const o = outcomes[i++];
        if (o instanceof Error) throw o;
        return o;
      },
      timeoutMs: 10_000,
      intervalMs: 0,
      log: l => log.push(l),
    });
    expect(result).toBe(ready);
    expect(log).toEqual([
      'phase Loading [Qdrant 1/3]',
      'could not read the platform, retrying: socket hang up',
      'could not read the platform, retrying: GET ...: 503',
      'phase Ready [Qdrant 3/3]',
    ]);
  });

  it('fails at once on a read error a retry cannot fix', async () => {
    const forbidden = Object.assign(new Error('GET ...: 403 forbidden'), {
      statusCode: 403,
    });
    await expect(
      waitForReady({
        read: async () => {
          throw forbidden;
        },
        timeoutMs: 10_000,
        intervalMs: 0,
        log: () => {},
      }),
    ).rejects.toBe(forbidden);
  });

  it('fails when the platform is deleted', async () => {
    await expect(
      waitForReady({
        read: sequence([loading('0/3'), undefined]),
        timeoutMs: 10_000,
        intervalMs: 0,
        log: () => {},
      }),
    ).rejects.toThrow('the platform was deleted while waiting for it');
  });

  it('times out with the last state seen', async () => {
    await expect(
      waitForReady({
        read: sequence([loading('2/3')]),
        timeoutMs: 20,
        intervalMs: 5,
        log: () => {},
      }),
    ).rejects.toThrow(
      'timed out after 0 s waiting for phase Ready; last seen phase Loading [Qdrant 2/3]',
    );
  });
});
