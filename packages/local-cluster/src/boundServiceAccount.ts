import fs from 'node:fs';
import yaml from 'js-yaml';
import type { ApiResponse } from './ApiRequester';

interface Requester {
  request(method: string, urlPath: string, body?: unknown, contentType?: string): Promise<ApiResponse>;
}

export interface BoundServiceAccount {
  token: string;
  /** A kubeconfig (YAML) for the admin kubeconfig's cluster and this account's token. */
  kubeconfig: string;
  /** Deletes the cluster-scoped roles and bindings (namespaced ones go with the namespace). */
  cleanup(): Promise<void>;
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/**
 * A service account in `namespace` holding exactly the rules of the given
 * manifests (ClusterRoles bound cluster-wide, ClusterRoles bound in the
 * namespace only, Roles in the namespace), and a token for it: what a test
 * needs to run a component under its shipped RBAC. Cluster-scoped copies are
 * named `<prefix>-<n>` so parallel tests never share one.
 */
export async function boundServiceAccount(
  api: Requester,
  opts: {
    namespace: string;
    name: string;
    prefix: string;
    clusterRoles?: any[];
    namespacedClusterRoles?: any[];
    roles?: any[];
    adminKubeconfigPath: string;
  },
): Promise<BoundServiceAccount> {
  const created: string[] = [];
  const mk = async (p: string, body: any) => {
    const r = await api.request('POST', p, body);
    if (r.status >= 300) throw new Error(`${p}: ${JSON.stringify(r.body)}`);
    return r.body as any;
  };
  const { namespace: ns, name } = opts;
  const subjects = [{ kind: 'ServiceAccount', name, namespace: ns }];
  const binding = (kind: string, metadata: object, roleKind: string, roleName: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects,
  });
  await mk(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  let n = 0;
  const clusterRole = async (doc: any) => {
    const roleName = `${opts.prefix}-${n++}`;
    await mk(`${RBAC}/clusterroles`, { ...doc, metadata: { name: roleName } });
    created.push(`${RBAC}/clusterroles/${roleName}`);
    return roleName;
  };
  for (const doc of opts.clusterRoles ?? []) {
    const roleName = await clusterRole(doc);
    await mk(`${RBAC}/clusterrolebindings`, binding('ClusterRoleBinding', { name: roleName }, 'ClusterRole', roleName));
    created.push(`${RBAC}/clusterrolebindings/${roleName}`);
  }
  for (const doc of opts.namespacedClusterRoles ?? []) {
    const roleName = await clusterRole(doc);
    await mk(`${RBAC}/namespaces/${ns}/rolebindings`, binding('RoleBinding', { name: roleName }, 'ClusterRole', roleName));
  }
  for (const [i, doc] of (opts.roles ?? []).entries()) {
    const roleName = `${opts.prefix}-role-${i}`;
    await mk(`${RBAC}/namespaces/${ns}/roles`, { ...doc, metadata: { name: roleName, namespace: ns } });
    await mk(`${RBAC}/namespaces/${ns}/rolebindings`, binding('RoleBinding', { name: roleName }, 'Role', roleName));
  }
  const token: string = (
    await mk(`/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    })
  ).status.token;
  const admin = yaml.load(fs.readFileSync(opts.adminKubeconfigPath, 'utf8')) as any;
  const kubeconfig = yaml.dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: admin.clusters[0].cluster }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: 'local', user: name } }],
    'current-context': name,
  });
  return {
    token,
    kubeconfig,
    cleanup: async () => {
      for (const p of created.reverse()) await api.request('DELETE', p);
    },
  };
}
