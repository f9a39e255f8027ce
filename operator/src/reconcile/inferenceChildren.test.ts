import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { inferenceConfigMap, inferenceDeployment, modelPersistentVolumeClaim } from './inferenceChildren';

function platform(mutate: (p: any) => void = () => {}) {
  const p: any = sampleInferencePlatform('p', 'ns');
  p.metadata.uid = 'uid';
  mutate(p);
  const spec = withDefaults(p.spec);
  return { deployment: inferenceDeployment(p, spec), pvc: modelPersistentVolumeClaim(p, spec), config: inferenceConfigMap(p, spec) };
}
const env = (c: any, name: string) => c.env.find((e: any) => e.name === name)?.value;

describe('the model volume', () => {
  it('with modelUpdate Rollout, gives each model URL its own directory on the model PVC, the same for loader and server', () => {
    const a = platform(p => {
      p.spec.inference.modelSource = { mode: 'pvc' };
      p.spec.inference.modelUpdate = 'Rollout';
    });
    const b = platform(p => {
      p.spec.inference.modelSource = { mode: 'pvc' };
      p.spec.inference.modelUpdate = 'Rollout';
      p.spec.inference.modelUrl = 's3://models/other.onnx';
    });
    const pathOf = (d: any) => env(d.spec.template.spec.initContainers[0], 'MODEL_PATH');
    expect(pathOf(a.deployment)).toMatch(/^\/models\/[0-9a-f]{16}\/model\.onnx$/);
    expect(env(a.deployment.spec.template.spec.containers[0], 'MODEL_PATH')).toBe(pathOf(a.deployment));
    expect(pathOf(b.deployment)).not.toBe(pathOf(a.deployment));
  });

  it('keeps the one in-memory file for emptyDir models', () => {
    const { deployment } = platform();
    expect(env(deployment.spec.template.spec.initContainers![0], 'MODEL_PATH')).toBe('/models/model.onnx');
  });

  it('asks for ReadWriteOnce when told, and then places every server on the volume\'s node', () => {
    const rwo = platform(p => (p.spec.inference.modelSource = { mode: 'pvc', accessMode: 'ReadWriteOnce', storageClassName: 'gp2' }));
    expect(rwo.pvc!.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(rwo.deployment.spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
      { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: expect.objectContaining({ 'app.kubernetes.io/component': 'inference' }) } },
    ]);
    const rwx = platform(p => (p.spec.inference.modelSource = { mode: 'pvc' }));
    expect(rwx.pvc!.spec.accessModes).toEqual(['ReadWriteMany']);
    expect(rwx.deployment.spec.template.spec.affinity).toBeUndefined();
  });
});

describe('model updates', () => {
  const other = (p: any) => (p.spec.inference.modelUrl = 's3://models/other.onnx');
  it('hot reload (default): a new model URL changes the ConfigMap key new loaders read, never the pod template', () => {
    for (const mode of ['emptyDir', 'pvc']) {
      const a = platform(p => (p.spec.inference.modelSource = { mode }));
      const b = platform(p => {
        p.spec.inference.modelSource = { mode };
        other(p);
      });
      expect(b.deployment.spec.template).toEqual(a.deployment.spec.template);
      expect(a.config.data.MODEL_URL).toBe('s3://models/resnet50-v2-7.onnx');
      expect(b.config.data.MODEL_URL).toBe('s3://models/other.onnx');
      expect(b.config.data['config.json']).toBe(a.config.data['config.json']);
      const loader = b.deployment.spec.template.spec.initContainers![0];
      expect(loader.env.find((e: any) => e.name === 'MODEL_URL')).toEqual({
        name: 'MODEL_URL',
        valueFrom: { configMapKeyRef: { name: 'p-inference-config', key: 'MODEL_URL' } },
      });
    }
  });

  it('the server gets the S3 settings to fetch a hot-reloaded model itself', () => {
    const s3 = { endpoint: 'http://s3.local', region: 'r', credentialsSecretRef: { name: 'keys' } };
    const { deployment } = platform(p => (p.spec.inference.modelSource = { s3 }));
    const server = deployment.spec.template.spec.containers[0];
    expect(env(server, 'S3_ENDPOINT')).toBe('http://s3.local');
    expect(server.env.find((e: any) => e.name === 'AWS_ACCESS_KEY_ID').valueFrom.secretKeyRef).toEqual({ name: 'keys', key: 'AWS_ACCESS_KEY_ID' });
  });

  it('Rollout, and pvc:// models always: a new model URL rolls the pods', () => {
    for (const mutate of [(p: any) => (p.spec.inference.modelUpdate = 'Rollout'), (p: any) => (p.spec.inference.modelUrl = 'pvc://claim/a.onnx')]) {
      const a = platform(mutate);
      const b = platform(p => {
        mutate(p);
        p.spec.inference.modelUrl = p.spec.inference.modelUrl.startsWith('pvc://') ? 'pvc://claim/b.onnx' : 's3://models/other.onnx';
      });
      expect(b.deployment.spec.template).not.toEqual(a.deployment.spec.template);
    }
  });
});

describe('GPU platforms', () => {
  it('ask the server for CUDA and roll one pod at a time; CPU platforms do neither', () => {
    const gpu = platform(p => (p.spec.inference.gpu = { count: 1 })).deployment;
    expect(env(gpu.spec.template.spec.containers[0], 'EXECUTION_PROVIDER')).toBe('cuda');
    expect(gpu.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 1, maxSurge: 0 });
    const cpu = platform().deployment;
    expect(env(cpu.spec.template.spec.containers[0], 'EXECUTION_PROVIDER')).toBeUndefined();
    expect(cpu.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
  });
});
