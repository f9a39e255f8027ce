import { atom } from 'jotai';
import {
  InferencePlatformV1beta1,
  Phase,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';
import { PlatformsState } from './PlatformsState';
import { PlatformKey, parsePlatformKey } from './platformKey';
import { inferenceReadiness, qdrantReadiness, Readiness } from './readiness';

export type SortColumn =
  | 'cluster'
  | 'name'
  | 'namespace'
  | 'phase'
  | 'qdrant'
  | 'inference'
  | 'model'
  | 'age';
export type SortDirection = 'asc' | 'desc';
export interface Sort {
  column: SortColumn;
  direction: SortDirection;
}

/** Most urgent first when sorting by phase ascending. */
const PHASE_RANK: Record<Phase, number> = {
  Failed: 0,
  Degraded: 1,
  Pending: 2,
  Loading: 3,
  Ready: 4,
};

/**
 * Columns whose values change with status updates; sorting by them makes the
 * visible order depend on every platform, the others depend on keys only.
 */
const LIVE_COLUMNS = new Set<SortColumn>([
  'phase',
  'qdrant',
  'inference',
  'model',
]);

const ratio = (r: Readiness) => (r.desired === 0 ? 1 : r.ready / r.desired);

function rank(p: InferencePlatformV1beta1): number {
  const phase = p.status?.phase;
  return phase ? PHASE_RANK[phase] ?? 5 : 5;
}

interface Entry {
  key: PlatformKey;
  /** Absent on a page that does not name clusters. */
  cluster?: string;
  namespace: string;
  name: string;
  p?: InferencePlatformV1beta1;
  /** The sort column's value, computed once per entry rather than per comparison. */
  value: number | string;
}

function sortValue(
  column: SortColumn,
  e: Entry,
  state: PlatformsState,
): number | string {
  switch (column) {
    // The other name part breaks ties, in the same direction.
    // The key: `[<cluster>/]<namespace>/<name>`.
    case 'cluster':
      return e.key;
    // The cluster breaks remaining ties (same namespace/name on two clusters).
    case 'name':
      return e.cluster
        ? `${e.name}/${e.namespace}/${e.cluster}`
        : `${e.name}/${e.namespace}`;
    case 'namespace':
      return e.cluster
        ? `${e.namespace}/${e.name}/${e.cluster}`
        : `${e.namespace}/${e.name}`;
    case 'age':
      // Ascending age = newest first, as "age" reads.
      return -state.createdAt(e.key);
    case 'phase':
      return rank(e.p!);
    case 'qdrant':
      return ratio(qdrantReadiness(e.p!));
    case 'inference':
      return ratio(inferenceReadiness(e.p!));
    case 'model':
      return e.p!.spec.inference.model.url;
    default:
      return 0;
  }
}

function compareValues(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

function compareKeys(a: PlatformKey, b: PlatformKey): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Filter and sort state of the list page, and the ordered keys it shows.
 * The derived atom returns the previous array when the order did not change,
 * so the table re-renders only when rows come, go or move, never because one
 * platform's status changed.
 */
export function createListView(state: PlatformsState) {
  const textAtom = atom('');
  const phasesAtom = atom<readonly Phase[]>([]);
  /** Only platforms of these clusters; empty: every cluster. */
  const clusterFilterAtom = atom<readonly string[]>([]);
  const sortAtom = atom<Sort>({ column: 'name', direction: 'asc' });
  const parsed = new Map<PlatformKey, PlatformRef>();
  let previous: readonly PlatformKey[] = [];

  const visibleKeysAtom = atom(get => {
    const keys = get(state.keysAtom);
    const text = get(textAtom).trim().toLowerCase();
    const phases = get(phasesAtom);
    const clusters = get(clusterFilterAtom);
    const sort = get(sortAtom);
    const needRows =
      text !== '' || phases.length > 0 || LIVE_COLUMNS.has(sort.column);
    // Only views that look at status recompute on every change.
    if (needRows) get(state.revisionAtom);

    let entries: Entry[] = keys.map(key => {
      let names = parsed.get(key);
      if (!names) {
        names = parsePlatformKey(key);
        parsed.set(key, names);
      }
      return {
        key,
        ...names,
        p: needRows ? state.platform(key) : undefined,
        value: 0,
      };
    });
    // By key alone: needs no status, so no subscription to every change.
    if (clusters.length > 0) {
      entries = entries.filter(e => e.cluster && clusters.includes(e.cluster));
    }
    if (needRows) entries = entries.filter(e => e.p);
    if (phases.length > 0) {
      entries = entries.filter(
        e => e.p?.status?.phase && phases.includes(e.p.status.phase),
      );
    }
    if (text) {
      entries = entries.filter(
        e =>
          e.name.toLowerCase().includes(text) ||
          e.namespace.toLowerCase().includes(text) ||
          (e.cluster ?? '').toLowerCase().includes(text) ||
          (e.p?.spec.inference.model.url ?? '').toLowerCase().includes(text),
      );
    }
    for (const e of entries) e.value = sortValue(sort.column, e, state);
    const sign = sort.direction === 'asc' ? 1 : -1;
    // Ties fall back to the key so the order is stable between events.
    entries.sort(
      (a, b) =>
        sign * compareValues(a.value, b.value) || compareKeys(a.key, b.key),
    );

    const next = entries.map(e => e.key);
    if (
      next.length === previous.length &&
      next.every((k, i) => k === previous[i])
    ) {
      return previous;
    }
    previous = next;
    return next;
  });

  const totalAtom = atom(get => get(state.keysAtom).length);

  return {
    textAtom,
    phasesAtom,
    clusterFilterAtom,
    sortAtom,
    visibleKeysAtom,
    totalAtom,
  };
}

export type ListView = ReturnType<typeof createListView>;
