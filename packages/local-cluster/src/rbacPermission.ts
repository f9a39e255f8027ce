/**
 * "verb group/resource[/subresource]" of one request, as the RBAC authorizer
 * sees it: what a test records from a component's client to compare its use
 * with the rules it ships. `WATCH` stands for a GET with `watch=true`.
 */
export function rbacPermission(method: string, urlPath: string): string {
  const parts = urlPath.split('?')[0].split('/').filter(Boolean);
  const group = parts[0] === 'api' ? '' : parts[1];
  let rest = parts.slice(parts[0] === 'api' ? 2 : 3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [resource, name, sub] = rest;
  const verbs: Record<string, string> = {
    WATCH: 'watch',
    GET: name ? 'get' : 'list',
    POST: 'create',
    PUT: 'update',
    PATCH: 'patch',
    DELETE: 'delete',
  };
  return `${verbs[method]} ${group}/${resource}${sub ? `/${sub}` : ''}`;
}

/** What a set of RBAC rules grants, in the form of {@link rbacPermission}. */
export function grantedPermissions(rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>): Set<string> {
  const out = new Set<string>();
  for (const r of rules) {
    for (const g of r.apiGroups) for (const res of r.resources) for (const v of r.verbs) out.add(`${v} ${g}/${res}`);
  }
  return out;
}
