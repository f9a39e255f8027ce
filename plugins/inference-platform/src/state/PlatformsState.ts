import { atom, createStore, PrimitiveAtom } from 'jotai';
import {
  ClusterInfo,
  InferencePlatformV1beta1,
  PlatformEventType,
} from '@cv-platform/plugin-inference-platform-common';
import { ConnectionStatus, initialConnectionStatus } from '../api';
import { PlatformKey, parsePlatformKey, platformKey } from './platformKey';

type Store = ReturnType<typeof createStore>;
export type PlatformAtom = PrimitiveAtom<InferencePlatformV1beta1 | undefined>;

/**
 * A change from a feed, with the cluster the platform is addressed with: the
 * cluster the feed was opened for, or none for the default cluster of a feed
 * opened without one. (Not the event's own `cluster`, which a backend always
 * fills in: a single-cluster page keeps `<namespace>/<name>` keys.)
 */
export interface PlatformUpdate {
  type: PlatformEventType;
  platform: InferencePlatformV1beta1;
  cluster?: string;
}

/**
 * Resource versions are opaque by API convention, but every etcd-backed API
 * server hands out increasing decimal revisions; only when both look like
 * that do we dare to call one older.
 */
function isOlder(incoming?: string, current?: string): boolean {
  if (
    !incoming ||
    !current ||
    !/^\d+$/.test(incoming) ||
    !/^\d+$/.test(current)
  ) {
    return false;
  }
  if (incoming.length !== current.length)
    return incoming.length < current.length;
  return incoming < current;
}

/**
 * The live platform list of one page: its own Jotai store (never the global
 * default one, so two pages or two tests never share state) and one atom per
 * platform, so an event about one platform re-renders only what shows it.
 *
 * Atoms live in a per-instance map rather than in jotai's atomFamily: the
 * family cache is module-global (it would outlive the page and leak across
 * tests) and it is deprecated in jotai 2.
 */
export class PlatformsState {
  readonly store: Store = createStore();
  /** Keys in key order; changes only when platforms come or go. */
  readonly keysAtom = atom<readonly PlatformKey[]>([]);
  /**
   * Bumped once per applied batch. Views over the whole list (sorting by a
   * status column) depend on this one atom and read `platform()`, instead of
   * subscribing to a thousand platform atoms and paying for each on every
   * recomputation.
   */
  readonly revisionAtom = atom(0);
  /** False until the first snapshot arrived. */
  readonly loadedAtom = atom(false);
  readonly connectionAtom = atom<ConnectionStatus>(initialConnectionStatus);
  /**
   * The backend's clusters as GET /clusters listed them for a page that
   * follows all of them; empty until known, and when the page follows one
   * feed without naming a cluster. More than one: the page shows clusters.
   */
  readonly clustersAtom = atom<readonly ClusterInfo[]>([]);
  /** Wall clock for relative ages; ticked by the page, read only by age cells. */
  readonly nowAtom = atom(Date.now());
  private readonly atoms = new Map<PlatformKey, PlatformAtom>();
  /** The atoms' values, readable without subscribing. */
  private readonly values = new Map<PlatformKey, InferencePlatformV1beta1>();
  private readonly created = new Map<PlatformKey, number>();

  /** @param include - keeps only the platforms a page shows (a detail page: one). */
  constructor(
    private readonly include: (key: PlatformKey) => boolean = () => true,
  ) {}

  platformAtom(key: PlatformKey): PlatformAtom {
    let a = this.atoms.get(key);
    if (!a) {
      a = atom<InferencePlatformV1beta1 | undefined>(this.values.get(key));
      a.debugLabel = `platform:${key}`;
      this.atoms.set(key, a);
    }
    return a;
  }

  /** Current value without subscribing; for derivations that track revisionAtom. */
  platform(key: PlatformKey): InferencePlatformV1beta1 | undefined {
    return this.values.get(key);
  }

  /** Creation time in epoch ms; immutable, so sorting by age needs no subscription. */
  createdAt(key: PlatformKey): number {
    return this.created.get(key) ?? 0;
  }

  setConnection(status: ConnectionStatus) {
    this.store.set(this.connectionAtom, status);
  }

  /**
   * Replaces the platforms of one cluster (`cluster` as in {@link PlatformUpdate});
   * those of other clusters, fed by other streams, stay.
   */
  applySnapshot(items: InferencePlatformV1beta1[], cluster?: string) {
    const next = new Map<PlatformKey, InferencePlatformV1beta1>();
    for (const p of items) {
      const key = platformKey(p, cluster);
      if (this.include(key)) next.set(key, p);
    }
    const others: PlatformKey[] = [];
    for (const key of this.store.get(this.keysAtom)) {
      if (parsePlatformKey(key).cluster !== (cluster || undefined))
        others.push(key);
      else if (!next.has(key)) this.remove(key);
    }
    for (const [key, p] of next) this.put(key, p, false);
    this.setKeys([...others, ...next.keys()].sort());
    this.bumpRevision();
    this.store.set(this.loadedAtom, true);
  }

  applyChange(event: PlatformUpdate) {
    this.applyChanges([event]);
  }

  /** Applies events in order, with one key-list update and one revision bump. */
  applyChanges(events: readonly PlatformUpdate[]) {
    const keys = this.store.get(this.keysAtom);
    const present = new Set(keys);
    let keysChanged = false;
    let changed = false;
    for (const event of events) {
      const key = platformKey(event.platform, event.cluster);
      if (!this.include(key)) continue;
      if (event.type === 'DELETED') {
        const rv = event.platform.metadata.resourceVersion;
        if (isOlder(rv, this.values.get(key)?.metadata.resourceVersion))
          continue;
        changed = this.remove(key) || changed;
        keysChanged = present.delete(key) || keysChanged;
        continue;
      }
      changed = this.put(key, event.platform, true) || changed;
      if (!present.has(key)) {
        present.add(key);
        keysChanged = true;
      }
    }
    if (keysChanged) this.setKeys([...present].sort());
    if (changed || keysChanged) this.bumpRevision();
  }

  /**
   * Applies an object the API server returned from a write: it is confirmed,
   * so the page shows it without waiting for the feed to echo it.
   */
  applyConfirmed(platform: InferencePlatformV1beta1, cluster?: string) {
    this.applyChange({ type: 'MODIFIED', platform, cluster });
  }

  private put(
    key: PlatformKey,
    p: InferencePlatformV1beta1,
    guardOrder: boolean,
  ): boolean {
    const current = this.values.get(key);
    const rv = p.metadata.resourceVersion;
    // Same version: same content; skipping keeps rows still on resync.
    if (current && rv && current.metadata.resourceVersion === rv) return false;
    // The feed may deliver a version older than one a write already returned.
    if (guardOrder && isOlder(rv, current?.metadata.resourceVersion))
      return false;
    const ts = Date.parse(p.metadata.creationTimestamp ?? '');
    this.created.set(key, Number.isNaN(ts) ? 0 : ts);
    this.values.set(key, p);
    this.store.set(this.platformAtom(key), p);
    return true;
  }

  private remove(key: PlatformKey): boolean {
    if (!this.values.has(key)) return false;
    this.values.delete(key);
    this.store.set(this.platformAtom(key), undefined);
    return true;
  }

  private setKeys(keys: readonly PlatformKey[]) {
    const current = this.store.get(this.keysAtom);
    if (
      current.length === keys.length &&
      current.every((k, i) => k === keys[i])
    )
      return;
    this.store.set(this.keysAtom, keys);
  }

  private bumpRevision() {
    this.store.set(this.revisionAtom, this.store.get(this.revisionAtom) + 1);
  }
}
