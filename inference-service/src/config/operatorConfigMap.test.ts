import fs from 'node:fs';
import path from 'node:path';
import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { inferenceConfigMap, inferenceDeployment } from '@cv-platform/operator';
import { makeTempDir } from '../__testUtils__/tempDir';
import { loadConfig } from './loadConfig';

/**
 * What the server does first in the operator's pod: load CONFIG_FILE (the
 * generated ConfigMap) merged with the generated container env. Before this
 * test the ConfigMap's camelCase keys made it exit at start.
 */
describe("the operator's ConfigMap and env, as the server loads them", () => {
  it('is accepted, and says what the operator meant', () => {
    const p: any = sampleInferencePlatform('p', 'ns');
    p.metadata.uid = 'uid';
    const spec = withDefaults(p.spec);
    const tmp = makeTempDir();
    try {
      const file = path.join(tmp.dir, 'config.json');
      fs.writeFileSync(file, inferenceConfigMap(p, spec).data['config.json']);
      const container = inferenceDeployment(p, spec).spec.template.spec.containers[0];
      const env: Record<string, string> = {};
      for (const e of container.env) if (e.value !== undefined) env[e.name] = e.value;
      env.CONFIG_FILE = file;
      const config = loadConfig(env);
      expect(config.port).toBe(8080);
      expect(config.collection).toBe('images');
      expect(config.qdrant?.url).toBe('http://p-qdrant.ns.svc:6333');
      expect(config.batch).toMatchObject({ maxSize: 16, maxLatencyMs: 5 });
    } finally {
      tmp.cleanup();
    }
  });
});
