import { grantedPermissions, rbacPermission } from './rbacPermission';

describe('rbacPermission', () => {
  it('names core, grouped, namespaced, cluster-scoped and subresource requests as the authorizer does', () => {
    expect(rbacPermission('GET', '/api/v1/namespaces/a/pods')).toBe('list /pods');
    expect(rbacPermission('GET', '/api/v1/namespaces/a/pods/p/log?container=x')).toBe('get /pods/log');
    expect(rbacPermission('WATCH', '/apis/apps/v1/namespaces/a/statefulsets?watch=true')).toBe('watch apps/statefulsets');
    expect(rbacPermission('PATCH', '/apis/cv.platform.tech/v1beta1/namespaces/a/inferenceplatforms/x/status')).toBe(
      'patch cv.platform.tech/inferenceplatforms/status',
    );
    expect(rbacPermission('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/c')).toBe(
      'update apiextensions.k8s.io/customresourcedefinitions',
    );
    expect(rbacPermission('DELETE', '/api/v1/namespaces/a')).toBe('delete /namespaces');
  });

  it('expands rules into the same form', () => {
    expect([...grantedPermissions([{ apiGroups: ['', 'apps'], resources: ['pods'], verbs: ['get', 'list'] }])].sort()).toEqual([
      'get /pods',
      'get apps/pods',
      'list /pods',
      'list apps/pods',
    ]);
  });
});
