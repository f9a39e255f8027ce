import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { KubeConfig } from '@kubernetes/client-node';
import { boundServiceAccount, grantedPermissions, rbacPermission, testKubeconfigPath, testQdrantUrlTemplates } from '@cv-platform/local-cluster';
import { KubeApiError } from './kube/KubeClient';
import { Operator } from './Operator';
import {
  api,
  createPlatform,
  eventually,
  get,
  patchPlatform,
  sample,
  waitForPhase,
  withNamespace,
} from './__testUtils__/operatorTestEnv';

jest.setTimeout(180_000);

const manifests = yaml.loadAll(
  fs.readFileSync(path.resolve(__dirname, '../../deploy/operator/operator.yaml'), 'utf8'),
) as any[];
const doc = (kind: string, name: string) => manifests.find(d => d.kind === kind && d.metadata.name === name);

describe('the shipped RBAC', () => {
  it('is exactly what the operator uses: a full platform life cycle under it, with owner-reference enforcement on', async () => {
    await withNamespace('rbac', async ns => {
      // The shipped ClusterRole (renamed for this test), bound to a service
      // account of this namespace; the leader-election Role in this namespace;
      // the secrets role bound here because the platform references a key.
      const role = doc('ClusterRole', 'inference-platform-operator');
      const secretsRole = doc('ClusterRole', 'inference-platform-operator-secrets');
      const leaderRole = doc('Role', 'inference-platform-operator-leader-election');
      const account = await boundServiceAccount(api, {
        namespace: ns,
        name: 'operator',
        prefix: `ipo-${ns}`,
        clusterRoles: [role],
        namespacedClusterRoles: [secretsRole],
        roles: [leaderRole],
        adminKubeconfigPath: testKubeconfigPath(),
      });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(account.kubeconfig);
      const operator = new Operator({
        kubeConfig,
        namespaces: [ns],
        workers: 2,
        clusterInfoTtlMs: 1000,
        // The peers of the scale-down below: KWOK's pods run no Qdrant.
        ...testQdrantUrlTemplates(),
        drainPollMs: 200,
        leaderElection: { enabled: true, leaseNamespace: ns, retryPeriodMs: 500 },
      });
      // Every request the operator makes, and every refusal.
      const used = new Set<string>();
      const refused: string[] = [];
      const client = operator.client;
      const request = client.request.bind(client);
      client.request = (async (method: string, p: string, ...rest: any[]) => {
        const perm = rbacPermission(method, p);
        // Discovery (is a CRD installed?) is open to every user (system:discovery).
        if (!/^\/apis?\/[^/]+(\/[^/]+)?\/?$/.test(p.split('?')[0])) used.add(perm);
        // Server-side apply creates what does not exist yet: that takes create.
        if (method === 'PATCH' && rest[1] === 'application/apply-patch+yaml' && !perm.endsWith('/status')) used.add(perm.replace(/^patch/, 'create'));
        try {
          return await (request as any)(method, p, ...rest);
        } catch (e) {
          if (e instanceof KubeApiError && e.statusCode === 403) refused.push(`${perm}: ${e.message}`);
          throw e;
        }
      }) as typeof client.request;
      const watch = client.watch.bind(client);
      client.watch = ((p: string, ...rest: any[]) => {
        used.add(rbacPermission('WATCH', p));
        return (watch as any)(p, ...rest);
      }) as typeof client.watch;

      await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: 'qdrant-key' }, stringData: { 'api-key': 'k' },
      });
      const p = sample(ns, 'rbac');
      p.spec.qdrant.replicas = 1;
      p.spec.inference.replicas = 1;
      p.spec.qdrant.apiKeySecretRef = { name: 'qdrant-key' };
      p.spec.inference.modelSource = { mode: 'pvc', sizeLimit: '2Gi' } as any;
      await createPlatform(p);
      await operator.start();
      try {
        await waitForPhase(ns, 'rbac', 'Ready');
        // Scale up (a PDB appears), grow the volumes (the StatefulSet is
        // re-created, its PVCs expanded), go back to an in-memory model (the
        // model PVC is deleted), scale down (the PDB goes).
        await patchPlatform(ns, 'rbac', { spec: { qdrant: { replicas: 3 } } });
        await waitForPhase(ns, 'rbac', 'Ready');
        await patchPlatform(ns, 'rbac', { spec: { qdrant: { storage: { size: '20Gi' } }, inference: { model: { source: { mode: 'emptyDir' } } } } });
        await eventually('grown and model PVC gone', async () =>
          (await get(`/apis/apps/v1/namespaces/${ns}/statefulsets/rbac-qdrant`)).body.spec?.volumeClaimTemplates?.[0].spec.resources.requests.storage === '20Gi' &&
          (await get(`/api/v1/namespaces/${ns}/persistentvolumeclaims/rbac-model`)).status === 404,
        );
        await patchPlatform(ns, 'rbac', { spec: { qdrant: { replicas: 1 } } });
        await eventually('PDB gone', async () => (await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/rbac-qdrant`)).status === 404);
        await waitForPhase(ns, 'rbac', 'Ready');
        await eventually('Qdrant API key read', async () => used.has('get /secrets'));
        // Autoscaling on CPU creates an HPA; turning it off deletes it.
        await patchPlatform(ns, 'rbac', { spec: { inference: { autoscaling: { maxReplicas: 3, target: 70 } } } });
        await eventually('HPA', async () => (await get(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/rbac-inference`)).status === 200);
        await patchPlatform(ns, 'rbac', { spec: { inference: { autoscaling: null } } });
        await eventually('HPA gone', async () => (await get(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/rbac-inference`)).status === 404);
        // A canary adds a Deployment, a ConfigMap and two Services; removing it deletes them.
        await patchPlatform(ns, 'rbac', { spec: { inference: { canary: { model: { url: 's3://models/v2.onnx' }, weight: 50, collection: 'images-v2' } } } });
        await eventually('canary', async () => (await get(`/apis/apps/v1/namespaces/${ns}/deployments/rbac-inference-canary`)).status === 200);
        await patchPlatform(ns, 'rbac', { spec: { inference: { canary: null } } });
        await eventually('canary gone', async () =>
          (await get(`/apis/apps/v1/namespaces/${ns}/deployments/rbac-inference-canary`)).status === 404 &&
          (await get(`/api/v1/namespaces/${ns}/configmaps/rbac-inference-canary-config`)).status === 404 &&
          (await get(`/api/v1/namespaces/${ns}/services/rbac-inference-canary`)).status === 404 &&
          (await get(`/api/v1/namespaces/${ns}/services/rbac-inference-stable`)).status === 404,
        );
        // A restore is run and its status written (this one fails at once:
        // the platform names no backup target).
        await api.request('POST', `/apis/cv.platform.tech/v1alpha1/namespaces/${ns}/inferenceplatformrestores`, {
          apiVersion: 'cv.platform.tech/v1alpha1', kind: 'InferencePlatformRestore', metadata: { name: 'r' },
          spec: { platformName: 'rbac', backupId: '20260101T000000Z' },
        });
        await eventually('restore failed', async () =>
          (await get(`/apis/cv.platform.tech/v1alpha1/namespaces/${ns}/inferenceplatformrestores/r`)).body.status?.phase === 'Failed',
        );
      } finally {
        await operator.stop();
        await account.cleanup();
      }

      expect(refused).toEqual([]);
      const rules = grantedPermissions([...role.rules, ...leaderRole.rules, ...secretsRole.rules]);
      // Checked by admission, never called: blockOwnerDeletion on children.
      // Watched only where KEDA and the Prometheus Operator are installed (not here).
      const implicit = new Set([
        'update cv.platform.tech/inferenceplatforms/finalizers',
        ...['list', 'watch', 'create', 'patch', 'delete'].map(v => `${v} keda.sh/scaledobjects`),
        ...['servicemonitors', 'podmonitors'].flatMap(r => ['list', 'watch', 'create', 'patch'].map(v => `${v} monitoring.coreos.com/${r}`)),
      ]);
      expect([...used].filter(u => !rules.has(u)).sort()).toEqual([]);
      expect([...rules].filter(r => !used.has(r) && !implicit.has(r)).sort()).toEqual([]);
    });
  });
});
