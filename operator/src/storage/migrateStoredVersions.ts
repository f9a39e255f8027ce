import { GROUP, PLURAL } from '@cv-platform/inference-platform-api';
import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { Logger, noopLogger } from '../logger';

export interface StorageMigrationResult {
  storageVersion: string;
  /** Objects written back at the storage version. */
  rewritten: number;
  /** status.storedVersions before and after. */
  before: string[];
  after: string[];
}

/**
 * Rewrites every stored object of a CRD at its storage version, as
 * kube-storage-version-migrator does (a read and an unchanged PUT: the API
 * server converts and encodes it anew), then drops the other versions from
 * the CRD's status.storedVersions. Until that list names only the storage
 * version, a CRD that stops serving an old version is refused. Safe to run
 * again and to interrupt: objects written meanwhile are stored at the
 * storage version already.
 */
export async function migrateStoredVersions(
  client: KubeClient,
  opts: { crdName?: string; logger?: Logger; pageSize?: number } = {},
): Promise<StorageMigrationResult> {
  const logger = opts.logger ?? noopLogger;
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${opts.crdName ?? `${PLURAL}.${GROUP}`}`;
  const crd = await client.request('GET', crdPath);
  const storage = crd.spec.versions.find((v: any) => v.storage)?.name;
  const before: string[] = crd.status?.storedVersions ?? [];
  if (before.length === 1 && before[0] === storage) {
    return { storageVersion: storage, rewritten: 0, before, after: before };
  }
  const base = `/apis/${crd.spec.group}/${storage}/${crd.spec.names.plural}`;
  let rewritten = 0;
  let cont: string | undefined;
  do {
    const page = await client.request(
      'GET',
      `${base}?limit=${opts.pageSize ?? 500}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
    );
    for (const item of page.items ?? []) {
      const ns = item.metadata.namespace;
      const path = ns
        ? `/apis/${crd.spec.group}/${storage}/namespaces/${ns}/${crd.spec.names.plural}/${item.metadata.name}`
        : `${base}/${item.metadata.name}`;
      let obj = item;
      for (let attempt = 0; ; attempt++) {
        try {
          await client.request('PUT', path, { ...obj, apiVersion: `${crd.spec.group}/${storage}`, kind: crd.spec.names.kind });
          rewritten++;
          break;
        } catch (e) {
          if (e instanceof KubeApiError && e.statusCode === 404) break;
          // Written meanwhile, so stored at the storage version already; one more read and write to be sure.
          if (e instanceof KubeApiError && e.statusCode === 409 && attempt < 5) {
            try {
              obj = await client.request('GET', path);
            } catch (g) {
              if (g instanceof KubeApiError && g.statusCode === 404) break;
              throw g;
            }
            continue;
          }
          throw e;
        }
      }
    }
    cont = page.metadata?.continue || undefined;
  } while (cont);
  await client.mergePatch(`${crdPath}/status`, { status: { storedVersions: [storage] } });
  logger.info('Migrated stored objects to the storage version', {
    crd: crd.metadata.name,
    storageVersion: storage,
    rewritten,
    storedVersionsBefore: before.join(','),
  });
  return { storageVersion: storage, rewritten, before, after: [storage] };
}
