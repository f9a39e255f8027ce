import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  sampleInferencePlatform,
  withDefaults,
} from '@cv-platform/inference-platform-api';
import { inferenceConfigMap, inferenceDeployment } from '@cv-platform/operator';
import { S3TestServer } from '@cv-platform/local-cluster';

jest.setTimeout(600_000);

/**
 * The model-loader init container exactly as the operator generates it, run
 * as the kubelet would run its command: env resolved (secretKeyRef from a
 * Secret's data), fetch-model started as a process, against a real
 * S3-compatible server that checks SigV4 signatures.
 */
describe("the operator's model-loader against an S3-compatible server", () => {
  const s3 = new S3TestServer();
  const bytes = Buffer.from('not really onnx, but bytes all the same');
  let dir: string;
  beforeAll(async () => {
    await s3.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loader-'));
    await s3.putObjects('models', { 'resnet/model.onnx': bytes });
  });
  afterAll(async () => {
    await s3.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** What the operator's ConfigMaps hold: name -> data (the loader reads MODEL_URL from one). */
  const configMaps: Record<string, Record<string, string>> = {};
  const platform = (mutate: (p: any) => void) => {
    const p: any = sampleInferencePlatform('p', 'ns');
    p.metadata.uid = 'uid';
    p.spec.inference.modelUrl = 's3://models/resnet/model.onnx';
    mutate(p);
    const spec = withDefaults(p.spec);
    const config = inferenceConfigMap(p, spec);
    configMaps[config.metadata.name] = config.data;
    return inferenceDeployment(p, spec);
  };

  /** Runs the init container's command with its env; secrets: name -> data. */
  function runLoader(
    deployment: any,
    secrets: Record<string, Record<string, string>>,
    modelPath: string,
  ) {
    const loader = deployment.spec.template.spec.initContainers[0];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: os.homedir(),
    };
    for (const e of loader.env) {
      const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
      const from = e.valueFrom?.secretKeyRef ? secrets : configMaps;
      const value = ref ? from[ref.name]?.[ref.key] : e.value;
      // The kubelet refuses to start a container whose secret key is missing.
      if (value === undefined)
        throw new Error(
          `CreateContainerConfigError: secret key ${ref?.name}/${ref?.key} not found`,
        );
      env[e.name] = value;
    }
    env.MODEL_PATH = modelPath;
    expect(loader.args).toEqual(['fetch-model']);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.resolve(__dirname, '../main.ts'),
        ...loader.args,
      ],
      { env },
    );
    let output = '';
    child.stdout.on('data', d => (output += d));
    child.stderr.on('data', d => (output += d));
    return new Promise<{ code: number | null; output: string }>(resolve =>
      child.on('exit', code => resolve({ code, output })),
    );
  }

  it('downloads with the keys of the referenced Secret from the configured endpoint', async () => {
    const deployment = platform(p => {
      p.spec.inference.modelSource = {
        s3: {
          endpoint: s3.endpoint,
          region: 'us-east-1',
          credentialsSecretRef: { name: 'model-store' },
        },
      };
    });
    const target = path.join(dir, 'ok', 'model.onnx');
    const { code, output } = await runLoader(
      deployment,
      {
        'model-store': {
          AWS_ACCESS_KEY_ID: s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        },
      },
      target,
    );
    expect({ code, output: code === 0 ? '' : output }).toEqual({
      code: 0,
      output: '',
    });
    expect(fs.readFileSync(target)).toEqual(bytes);
  });

  it('takes the key names the Secret uses', async () => {
    const deployment = platform(p => {
      p.spec.inference.modelSource = {
        s3: {
          endpoint: s3.endpoint,
          credentialsSecretRef: {
            name: 'minio',
            accessKeyIdKey: 'accesskey',
            secretAccessKeyKey: 'secretkey',
          },
        },
      };
    });
    const target = path.join(dir, 'named', 'model.onnx');
    const { code } = await runLoader(
      deployment,
      { minio: { accesskey: s3.accessKeyId, secretkey: s3.secretAccessKey } },
      target,
    );
    expect(code).toBe(0);
    expect(fs.readFileSync(target)).toEqual(bytes);
  });

  it("fails with the storage's reason when the keys are wrong, leaving no model behind", async () => {
    const deployment = platform(p => {
      p.spec.inference.modelSource = {
        s3: { endpoint: s3.endpoint, credentialsSecretRef: { name: 'wrong' } },
        maxRetries: 0,
      };
    });
    const target = path.join(dir, 'denied', 'model.onnx');
    const { code, output } = await runLoader(
      deployment,
      {
        wrong: {
          AWS_ACCESS_KEY_ID: s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: 'not-the-secret',
        },
      },
      target,
    );
    // It gave up (maxRetries 0) and says so: exit 0, so the pod does not crash-loop.
    expect(code).toBe(0);
    expect(output).toMatch(
      /model download failed after 1 attempt: .*s3:\/\/models\/resnet\/model\.onnx.*(SignatureDoesNotMatch|AccessDenied|403)/s,
    );
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(`${target}.failed`)).toBe(true);
  });

  it('injects no static keys without a Secret, so a ServiceAccount with a web identity (IRSA) is used', () => {
    const deployment = platform(p => {
      p.spec.inference.serviceAccountName = 'model-reader';
      p.spec.inference.modelSource = { s3: { region: 'eu-west-1' } };
    });
    const pod = deployment.spec.template.spec;
    expect(pod.serviceAccountName).toBe('model-reader');
    const names = pod.initContainers![0].env.map((e: any) => e.name);
    expect(names).toContain('AWS_REGION');
    expect(names).not.toContain('AWS_ACCESS_KEY_ID');
    expect(names).not.toContain('AWS_SECRET_ACCESS_KEY');
    // Keys never reach the serving container.
    expect(pod.containers[0].env.map((e: any) => e.name)).not.toContain(
      'AWS_SECRET_ACCESS_KEY',
    );
  });
});
