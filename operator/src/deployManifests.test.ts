import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { testApi } from '@cv-platform/local-cluster';

jest.setTimeout(60_000);

const deploy = path.resolve(__dirname, '../../deploy');
const docs = (file: string) => yaml.loadAll(fs.readFileSync(path.join(deploy, file), 'utf8')) as any[];

/** Every shipped manifest must be accepted by a real API server (server-side dry run). */
describe('deploy manifests', () => {
  const api = testApi();
  const plural = (kind: string) => {
    const k = kind.toLowerCase();
    if (k.endsWith('s')) return `${k}es`;
    return k.endsWith('y') ? `${k.slice(0, -1)}ies` : `${k}s`;
  };

  it.each(['operator/operator.yaml', 'samples/image-retrieval-prod.yaml'])('%s passes a dry-run apply', async file => {
    for (const doc of docs(file)) {
      const ns = doc.kind === 'Namespace' || doc.kind.startsWith('Cluster') ? undefined : doc.metadata.namespace ?? 'default';
      const base = doc.apiVersion.includes('/') ? `/apis/${doc.apiVersion}` : `/api/${doc.apiVersion}`;
      const url = `${base}${ns ? `/namespaces/${ns}` : ''}/${plural(doc.kind)}/${doc.metadata.name}?fieldManager=test&dryRun=All&force=true`;
      const res = await api.request('PATCH', url, JSON.stringify(doc), 'application/apply-patch+yaml');
      // A namespaced object in a namespace that only the dry run "created" is fine.
      const missingNs = res.status === 404 && String(res.body?.message).includes('namespaces "cv-platform-system" not found');
      expect({ file, kind: doc.kind, ok: res.status < 300 || missingNs, body: res.status < 300 || missingNs ? undefined : res.body }).toEqual({ file, kind: doc.kind, ok: true, body: undefined });
    }
  });
});
