import path from 'node:path';
import request from 'supertest';
import { makeTempDir } from '../__testUtils__/tempDir';
import { testConfig } from '../__testUtils__/testConfig';
import { writeTinyModel } from '../__testUtils__/writeTinyModel';
import { createService } from './createService';

/**
 * A GPU platform asks for CUDA. On a node where onnxruntime's CUDA provider
 * cannot load (as on this machine: no GPU, no CUDA libraries), the server
 * must still serve, on the CPU, and say so in its log and in /readyz.
 */
describe('EXECUTION_PROVIDER=cuda without a usable CUDA', () => {
  it('serves on the CPU, logging and reporting why', async () => {
    const tmp = makeTempDir();
    writeTinyModel(tmp.dir, { seed: 1, size: 16, dim: 8 });
    const lines: Array<[string, string, any]> = [];
    const service = createService(
      testConfig({ MODEL_PATH: path.join(tmp.dir, 'model.onnx'), EXECUTION_PROVIDER: 'cuda' }),
      { log: (level, msg, fields) => lines.push([level, msg, fields]) },
    );
    try {
      await service.started;
      const ready = await request(service.app).get('/readyz').expect(200);
      expect(ready.body.model).toMatchObject({ executionProvider: 'cpu', fallbackReason: expect.stringMatching(/Cuda|CUDA|cuda/) });
      expect(lines).toContainEqual([
        'warn',
        'CUDA is not usable, running the model on the CPU',
        { reason: ready.body.model.fallbackReason },
      ]);
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });

  it('runs on the CPU without a word when CPU is what was asked for', async () => {
    const tmp = makeTempDir();
    writeTinyModel(tmp.dir, { seed: 1, size: 16, dim: 8 });
    const service = createService(testConfig({ MODEL_PATH: path.join(tmp.dir, 'model.onnx') }));
    try {
      await service.started;
      const ready = await request(service.app).get('/readyz').expect(200);
      expect(ready.body.model.executionProvider).toBe('cpu');
      expect(ready.body.model.fallbackReason).toBeUndefined();
    } finally {
      await service.close();
      tmp.cleanup();
    }
  });
});
