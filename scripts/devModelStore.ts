/* eslint-disable no-console */
/**
 * The dev cluster's model store: an S3-compatible server (versitygw) on the
 * real node's bridge address, so pods reach it, holding the demo model (the
 * MobileNetV2 the inference service's tests build) at
 * s3://models/mobilenet-v2.onnx, and the Secret `demo-model-store` in the
 * default namespace with its keys. Runs until interrupted.
 */
import fs from 'node:fs';
import { ApiRequester, NODE_NETWORK, S3TestServer } from '@cv-platform/local-cluster';
import { ensureMobileNetV2Onnx } from '../inference-service/src/__testUtils__/nsfwjsMobileNetV2';

export const DEV_MODEL_STORE_PORT = 9000;

async function main() {
  const kubeconfig = process.env.KUBECONFIG;
  if (!kubeconfig)
    throw new Error(
      'KUBECONFIG is not set (run through `local-cluster run --real-node`)',
    );
  const s3 = new S3TestServer();
  await s3.start(NODE_NETWORK.gateway, DEV_MODEL_STORE_PORT);
  const stop = () => s3.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await s3.putObjects('models', {
    'mobilenet-v2.onnx': fs.readFileSync(await ensureMobileNetV2Onnx()),
  });
  const api = ApiRequester.fromKubeconfig(kubeconfig);
  await api.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'demo-model-store', namespace: 'default' },
    stringData: {
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    },
  });
  console.log(
    `model store: s3://models/mobilenet-v2.onnx at ${s3.endpoint} (Secret default/demo-model-store)`,
  );
}

main().catch(e => {
  console.error(`model store failed: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
});
