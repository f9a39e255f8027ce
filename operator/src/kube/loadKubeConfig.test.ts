import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadKubeConfig } from './loadKubeConfig';

describe('loadKubeConfig', () => {
  it('loads a kubeconfig file and its current cluster', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kc-'));
    const file = path.join(dir, 'config');
    fs.writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const kc = loadKubeConfig({ kubeconfigPath: file });
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    fs.rmSync(dir, { recursive: true });
  });

  it("builds one from a cluster as the Kubernetes plugin's config names it", () => {
    const kc = loadKubeConfig({
      cluster: { name: 'prod', url: 'https://k8s.example.com', serviceAccountToken: 'tok', caData: 'Q0E=', skipTLSVerify: false },
    });
    expect(kc.getCurrentCluster()).toMatchObject({ name: 'prod', server: 'https://k8s.example.com', caData: 'Q0E=', skipTLSVerify: false });
    expect(kc.getCurrentUser()).toMatchObject({ token: 'tok' });
  });
});
