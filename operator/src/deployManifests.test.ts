import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { ensureBinaries, ensureHelm, testApi } from '@cv-platform/local-cluster';

jest.setTimeout(600_000);

const deploy = path.resolve(__dirname, '../../deploy');
const docs = (file: string) => yaml.loadAll(fs.readFileSync(path.join(deploy, file), 'utf8')) as any[];

/** Every shipped manifest must be accepted by a real API server (server-side dry run). */
describe('deploy manifests', () => {
  const api = testApi();
  let helm: string;
  // Before any request: a first build of helm blocks the event loop for
  // minutes, and a keep-alive connection the API server closed meanwhile
  // would only be noticed by the next write (EPIPE).
  beforeAll(() => {
    helm = ensureHelm();
  });
  const plural = (kind: string) => {
    const k = kind.toLowerCase();
    if (k.endsWith('s')) return `${k}es`;
    return k.endsWith('y') ? `${k.slice(0, -1)}ies` : `${k}s`;
  };

  /** Server-side dry run of each document; a namespace the dry run only "created" is fine. */
  async function dryRunAll(label: string, documents: any[]) {
    for (const doc of documents.filter(Boolean)) {
      const ns = doc.kind === 'Namespace' || doc.kind.startsWith('Cluster') || doc.kind === 'CustomResourceDefinition' ? undefined : doc.metadata.namespace ?? 'default';
      const base = doc.apiVersion.includes('/') ? `/apis/${doc.apiVersion}` : `/api/${doc.apiVersion}`;
      const url = `${base}${ns ? `/namespaces/${ns}` : ''}/${plural(doc.kind)}/${doc.metadata.name}?fieldManager=test&dryRun=All&force=true`;
      const res = await api.request('PATCH', url, JSON.stringify(doc), 'application/apply-patch+yaml').catch(e => {
        // A transport error names the document it was sending, not just the socket's complaint.
        throw new Error(`${label}: dry-run apply of ${doc.kind} ${doc.metadata.name} failed: ${e?.code ?? ''} ${e?.message ?? e}`);
      });
      const missingNs = res.status === 404 && /namespaces "[^"]+" not found/.test(String(res.body?.message));
      expect({ label, kind: doc.kind, ok: res.status < 300 || missingNs, body: res.status < 300 || missingNs ? undefined : res.body }).toEqual({
        label,
        kind: doc.kind,
        ok: true,
        body: undefined,
      });
    }
  }

  it.each(['operator/operator.yaml', 'samples/image-retrieval-prod.yaml'])('%s passes a dry-run apply', async file => {
    await dryRunAll(file, docs(file));
  });

  it('the kustomize base (deploy/) builds and passes a dry-run apply', async () => {
    const kubectl = path.join(ensureBinaries(), 'kubectl');
    const built = yaml.loadAll(execFileSync(kubectl, ['kustomize', deploy], { encoding: 'utf8' })) as any[];
    expect(built.map(d => `${d.kind}/${d.metadata.name}`)).toEqual(
      expect.arrayContaining(['CustomResourceDefinition/inferenceplatforms.cv.platform.tech', 'Deployment/inference-platform-operator', 'PodDisruptionBudget/inference-platform-operator']),
    );
    await dryRunAll('kustomize', built);
  });

  describe('the Helm chart', () => {
    const chart = path.join(deploy, 'helm/inference-platform-operator');
    const template = (...args: string[]) =>
      (yaml.loadAll(execFileSync(helm, ['template', 'ipo', chart, '--namespace', 'cv-platform-system', ...args], { encoding: 'utf8' })) as any[]).filter(Boolean);
    const find = (rendered: any[], kind: string) => rendered.filter(d => d.kind === kind);

    it('mounts a kubeconfig Secret and points the operator at it when kubeconfigSecret is set, and nothing by default', () => {
      const operator = (rendered: any[]) => find(rendered, 'Deployment')[0].spec.template.spec;
      const plain = operator(template());
      expect(plain.volumes).toBeUndefined();
      expect(plain.containers[0].args).not.toContain('--kubeconfig');
      const remote = operator(template('--set', 'kubeconfigSecret.name=remote', '--set', 'kubeconfigSecret.key=config'));
      expect(remote.volumes).toEqual([{ name: 'kubeconfig', secret: { secretName: 'remote' } }]);
      expect(remote.containers[0].volumeMounts).toEqual([{ name: 'kubeconfig', mountPath: '/etc/inference-platform-operator/kubeconfig', readOnly: true }]);
      const args = remote.containers[0].args;
      expect(args[args.indexOf('--kubeconfig') + 1]).toBe('/etc/inference-platform-operator/kubeconfig/config');
    });

    it('passes helm lint --strict', () => {
      expect(execFileSync(helm, ['lint', '--strict', chart], { encoding: 'utf8' })).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    });

    it('refuses values its schema does not know, naming them', () => {
      let message = '';
      try {
        template('--set', 'replicas=3');
      } catch (e: any) {
        message = String(e.stderr);
      }
      expect(message).toMatch(/additional properties 'replicas' not allowed/);
    });

    it('renders two replicas with leader election, a PodDisruptionBudget and the operator\'s exact RBAC, accepted by the API server', async () => {
      const rendered = template('--include-crds', '--set', 'rbac.secretNamespaces={team-a}', '--set', 'watchNamespaces={team-a,team-b}');
      const [deployment] = find(rendered, 'Deployment');
      expect(deployment.spec.replicas).toBe(2);
      expect(deployment.spec.template.spec.containers[0].args).toEqual([
        '--metrics-port', '8080', '--workers', '4', '--namespace', 'team-a', '--namespace', 'team-b',
        // Every replica serves the conversion webhook behind the release's webhook Service.
        '--conversion-webhook-port', '9443', '--conversion-webhook-service', 'ipo-inference-platform-operator-webhook', '--migrate-storage',
      ]);
      expect(find(rendered, 'Service').map(s => [s.metadata.name, s.spec.ports[0].port])).toEqual([
        ['ipo-inference-platform-operator-metrics', 8080],
        ['ipo-inference-platform-operator-webhook', 443],
      ]);
      expect(deployment.spec.template.spec.containers[0].image).toBe('ghcr.io/cv-platform/inference-platform-operator:0.1.0');
      expect(find(rendered, 'PodDisruptionBudget')[0].spec.minAvailable).toBe(1);
      expect(find(rendered, 'Role').map(r => r.metadata.name)).toEqual([
        'ipo-inference-platform-operator-leader-election',
        'ipo-inference-platform-operator-webhook-certificate',
      ]);
      expect(find(rendered, 'RoleBinding').map(r => `${r.metadata.namespace}/${r.metadata.name}`).sort()).toEqual([
        'cv-platform-system/ipo-inference-platform-operator-leader-election',
        'cv-platform-system/ipo-inference-platform-operator-webhook-certificate',
        'team-a/ipo-inference-platform-operator-secrets',
      ]);
      const shippedRoles = docs('operator/operator.yaml').filter(d => d.kind === 'Role');
      expect(find(rendered, 'Role').map(r => r.rules)).toEqual(shippedRoles.map(r => r.rules));
      // One source of truth for the rules: the manifest the RBAC test runs the operator under.
      const shipped = docs('operator/operator.yaml').filter(d => d.kind === 'ClusterRole');
      const roles = find(rendered, 'ClusterRole');
      expect(roles.map(r => r.rules)).toEqual(shipped.map(r => r.rules));
      expect(find(rendered, 'CustomResourceDefinition').map(c => c.metadata.name).sort()).toEqual([
        'inferenceplatformrestores.cv.platform.tech',
        'inferenceplatforms.cv.platform.tech',
      ]);
      // Without the Prometheus Operator: no monitor.
      expect(find(rendered, 'ServiceMonitor')).toEqual([]);
      await dryRunAll('helm', rendered.filter(d => d.kind !== 'CustomResourceDefinition'));
    });

    it('adds a ServiceMonitor where the Prometheus Operator is installed, and drops leader election and the PDB for one replica', () => {
      const monitored = template('--api-versions', 'monitoring.coreos.com/v1/ServiceMonitor');
      expect(find(monitored, 'ServiceMonitor')[0].spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
      const single = template('--set', 'replicaCount=1', '--set', 'leaderElection.enabled=false', '--set', 'metrics.serviceMonitor.enabled=false', '--set', 'metrics.podMonitor.enabled=true');
      expect(find(single, 'PodDisruptionBudget')).toEqual([]);
      expect(find(single, 'Role').map(r => r.metadata.name)).toEqual(['ipo-inference-platform-operator-webhook-certificate']);
      expect(find(single, 'Deployment')[0].spec.template.spec.containers[0].args).toContain('--no-leader-elect');
      expect(find(single, 'PodMonitor')).toHaveLength(1);
      expect(find(single, 'ServiceMonitor')).toEqual([]);
    });
  });
});
