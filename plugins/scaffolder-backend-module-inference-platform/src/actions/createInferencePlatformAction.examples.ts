import { TemplateExample } from '@backstage/plugin-scaffolder-node';
import yaml from 'js-yaml';

const step = (input: Record<string, unknown>) =>
  yaml.dump(
    {
      steps: [
        {
          id: 'create',
          name: 'Create the inference platform',
          action: 'inference-platform:create',
          input,
        },
      ],
    },
    { lineWidth: -1 },
  );

/** Shown in the portal's list of installed actions (/create/actions). */
export const examples: TemplateExample[] = [
  {
    description: 'Create a small platform from form parameters',
    example: step({
      name: '${{ parameters.name }}',
      namespace: '${{ parameters.namespace }}',
      owner: '${{ parameters.owner }}',
      qdrant: { version: 'v1.14.1', replicas: 1, storage: { size: '10Gi' } },
      inference: {
        image: 'my-repo/cv-inference:latest',
        model: { url: 's3://models/resnet50-v2-7.onnx' },
        replicas: 2,
      },
    }),
  },
  {
    description:
      'A distributed Qdrant and GPU inference servers, waiting until the platform is Ready',
    example: step({
      name: 'image-retrieval-prod',
      namespace: 'vision',
      owner: 'group:default/ml-platform',
      qdrant: {
        version: 'v1.14.1',
        replicas: 3,
        storage: { size: '50Gi', className: 'gp3' },
      },
      inference: {
        image: 'my-repo/cv-inference:latest',
        model: {
          url: 's3://models/resnet50-v2-7.onnx',
          source: { mode: 'pvc', sizeLimit: '5Gi' },
        },
        replicas: 5,
        resources: {
          requests: { cpu: '1', memory: '2Gi' },
          limits: { cpu: '2', memory: '4Gi' },
        },
        gpu: { count: 1, type: 'NVIDIA-A100-SXM4-40GB' },
      },
      waitForReady: true,
      timeoutSeconds: 900,
    }),
  },
  {
    description:
      'Only validate the platform (server-side dry run) and output its manifest, for a GitOps pull request',
    example: step({
      name: '${{ parameters.name }}',
      namespace: '${{ parameters.namespace }}',
      qdrant: '${{ parameters.qdrant }}',
      inference: '${{ parameters.inference }}',
      createInCluster: false,
    }),
  },
];
