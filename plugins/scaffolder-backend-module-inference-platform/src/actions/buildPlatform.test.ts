import { API_VERSION_V1BETA1 } from '@cv-platform/inference-platform-api';
import { buildPlatform, SCAFFOLDER_TASK_ANNOTATION } from './buildPlatform';

describe('buildPlatform', () => {
  it('builds a cv.platform.tech/v1beta1 InferencePlatform in the v1beta1 layout', () => {
    const platform = buildPlatform(
      {
        name: 'vision',
        namespace: 'ml',
        owner: 'group:default/ml-platform',
        entityRef: 'component:default/search',
        qdrant: {
          version: 'v1.14.1',
          replicas: 3,
          storage: { size: '50Gi', className: 'gp3' },
          replicationFactor: 2,
        },
        inference: {
          image: 'my-repo/cv-inference:latest',
          model: {
            url: 's3://models/resnet50-v2-7.onnx',
            source: { mode: 'pvc', sizeLimit: '5Gi', pullTimeoutSeconds: 900 },
            update: 'Rollout',
          },
          replicas: 2,
          batching: { maxSize: 32 },
        },
        backup: { schedule: '0 3 * * *', s3: { bucket: 'backups' } },
      },
      { taskId: 'task-1' },
    );
    expect(platform).toEqual({
      apiVersion: API_VERSION_V1BETA1,
      kind: 'InferencePlatform',
      metadata: {
        name: 'vision',
        namespace: 'ml',
        annotations: {
          'cv.platform.tech/owner': 'group:default/ml-platform',
          'cv.platform.tech/catalog-entity': 'component:default/search',
          [SCAFFOLDER_TASK_ANNOTATION]: 'task-1',
        },
      },
      spec: {
        qdrant: {
          version: 'v1.14.1',
          replicas: 3,
          storage: { size: '50Gi', className: 'gp3' },
          replicationFactor: 2,
        },
        inference: {
          image: 'my-repo/cv-inference:latest',
          model: {
            url: 's3://models/resnet50-v2-7.onnx',
            source: { mode: 'pvc', sizeLimit: '5Gi', pullTimeoutSeconds: 900 },
            update: 'Rollout',
          },
          replicas: 2,
          batching: { maxSize: 32 },
        },
        backup: { schedule: '0 3 * * *', s3: { bucket: 'backups' } },
      },
    });
    expect(API_VERSION_V1BETA1).toBe('cv.platform.tech/v1beta1');
  });

  it('drops what a form leaves blank, including objects left empty', () => {
    const platform = buildPlatform({
      name: 'vision',
      namespace: 'ml',
      owner: '',
      entityRef: '',
      qdrant: { version: 'v1.14.1', storage: { size: '', className: '' } },
      inference: {
        image: 'img',
        model: {
          url: 's3://m/model.onnx',
          source: { mode: 'emptyDir', storageClassName: '' },
        },
        gpu: { count: 0, type: '' },
      },
    });
    expect(platform.metadata).toEqual({ name: 'vision', namespace: 'ml' });
    expect(platform.spec).toEqual({
      qdrant: { version: 'v1.14.1' },
      inference: {
        image: 'img',
        model: { url: 's3://m/model.onnx', source: { mode: 'emptyDir' } },
        gpu: { count: 0 },
      },
    });
  });
});
