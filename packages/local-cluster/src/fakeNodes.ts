export const GPU_PRODUCT_LABEL = 'nvidia.com/gpu.product';
export const GPU_RESOURCE = 'nvidia.com/gpu';
export const LOCAL_GPU_PRODUCT = 'NVIDIA-A100-SXM4-40GB';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

interface FakeNodeSpec {
  name: string;
  zone: string;
  cpu: string;
  memory: string;
  gpus?: number;
}

export const FAKE_NODES: FakeNodeSpec[] = [
  { name: 'kwok-cpu-a1', zone: 'zone-a', cpu: '16', memory: '64Gi' },
  { name: 'kwok-cpu-a2', zone: 'zone-a', cpu: '16', memory: '64Gi' },
  { name: 'kwok-cpu-b1', zone: 'zone-b', cpu: '16', memory: '64Gi' },
  { name: 'kwok-gpu-b1', zone: 'zone-b', cpu: '32', memory: '128Gi', gpus: 4 },
];

/**
 * Node objects that KWOK adopts (by annotation) and keeps Ready. The GPU node
 * carries the NVIDIA device plugin's resource, the GPU feature discovery
 * product label and the usual NoSchedule taint, so only pods that ask for GPUs
 * (and tolerate it) land there.
 */
export function fakeNodeManifest(spec: FakeNodeSpec) {
  const capacity: Record<string, string> = {
    cpu: spec.cpu,
    memory: spec.memory,
    pods: '110',
    'ephemeral-storage': '200Gi',
  };
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': spec.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': spec.gpus ? 'gpu' : 'cpu',
    [ZONE_LABEL]: spec.zone,
    type: 'kwok',
  };
  const taints: Array<{ key: string; value: string; effect: string }> = [];
  if (spec.gpus) {
    capacity[GPU_RESOURCE] = String(spec.gpus);
    labels[GPU_PRODUCT_LABEL] = LOCAL_GPU_PRODUCT;
    taints.push({ key: GPU_RESOURCE, value: 'present', effect: 'NoSchedule' });
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: spec.name,
      labels,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { taints },
    status: { capacity, allocatable: capacity },
  };
}
