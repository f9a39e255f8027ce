import { sampleInferencePlatform, withDefaults } from '@cv-platform/inference-platform-api';
import { inferenceDeployment, modelPersistentVolumeClaim } from './inferenceChildren';

function platform(mutate: (p: any) => void = () => {}) {
  const p: any = sampleInferencePlatform('p', 'ns');
  p.metadata.uid = 'uid';
  mutate(p);
  const spec = withDefaults(p.spec);
  return { deployment: inferenceDeployment(p, spec), pvc: modelPersistentVolumeClaim(p, spec) };
}
const env = (c: any, name: string) => c.env.find((e: any) => e.name === name)?.value;

describe('the model volume', () => {
  it('gives each model URL its own directory on the model PVC, the same for loader and server', () => {
    const a = platform(p => (p.spec.inference.modelSource = { mode: 'pvc' }));
    const b = platform(p => {
      p.spec.inference.modelSource = { mode: 'pvc' };
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
