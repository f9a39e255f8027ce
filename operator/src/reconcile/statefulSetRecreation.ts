import { parseQuantity } from './isSubset';

/** What a volume claim template fixes for every peer's volume. */
interface ClaimShape {
  storageClassName: string;
  storage: number | undefined;
}

function claims(sts: any): Map<string, ClaimShape> {
  const out = new Map<string, ClaimShape>();
  for (const t of sts?.spec?.volumeClaimTemplates ?? []) {
    out.set(t.metadata?.name, {
      storageClassName: t.spec?.storageClassName ?? '',
      storage: parseQuantity(t.spec?.resources?.requests?.storage),
    });
  }
  return out;
}

export interface Recreation {
  /** Why the StatefulSet must be re-created, for the Event and the log. */
  reason: string;
  /** Volume claim templates whose size grew: their PVCs are expanded in place first. */
  grown: Array<{ template: string; storage: string }>;
}

/**
 * A StatefulSet's podManagementPolicy, serviceName, selector and volume claim
 * templates cannot be updated: an apply that changes them fails forever. When
 * the desired set differs from the live one in those fields, it must be
 * deleted with orphan propagation (its pods and PVCs stay and are adopted by
 * the new one) and created again. Returns undefined when an apply suffices.
 */
export function statefulSetRecreation(desired: any, live: any): Recreation | undefined {
  if (!live) return undefined;
  const reasons: string[] = [];
  const want = desired.spec;
  const have = live.spec ?? {};
  if ((want.podManagementPolicy ?? 'OrderedReady') !== (have.podManagementPolicy ?? 'OrderedReady')) {
    reasons.push(`podManagementPolicy ${have.podManagementPolicy ?? 'OrderedReady'} -> ${want.podManagementPolicy}`);
  }
  if (want.serviceName !== have.serviceName) reasons.push(`serviceName ${have.serviceName} -> ${want.serviceName}`);
  const labels = (l: Record<string, string> | undefined) => JSON.stringify(Object.entries(l ?? {}).sort());
  if (labels(want.selector?.matchLabels) !== labels(have.selector?.matchLabels)) {
    reasons.push('selector changed');
  }
  const grown: Recreation['grown'] = [];
  const liveClaims = claims(live);
  for (const t of want.volumeClaimTemplates ?? []) {
    const name = t.metadata.name;
    const before = liveClaims.get(name);
    const after = claims({ spec: { volumeClaimTemplates: [t] } }).get(name)!;
    if (!before) {
      reasons.push(`volume claim template ${name} added`);
      continue;
    }
    if (before.storageClassName !== after.storageClassName) {
      reasons.push(`volume claim template ${name}: storageClassName ${before.storageClassName || '(default)'} -> ${after.storageClassName || '(default)'}`);
    }
    if (before.storage !== after.storage) {
      reasons.push(`volume claim template ${name}: storage ${before.storage} -> ${after.storage} bytes`);
      if ((after.storage ?? 0) > (before.storage ?? 0)) grown.push({ template: name, storage: String(t.spec.resources.requests.storage) });
    }
  }
  if (liveClaims.size !== (want.volumeClaimTemplates ?? []).length) reasons.push('volume claim templates removed');
  return reasons.length ? { reason: [...new Set(reasons)].join('; '), grown } : undefined;
}
