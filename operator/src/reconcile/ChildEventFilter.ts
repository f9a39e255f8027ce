import type { InformerEventType } from '../runtime/Informer';

/**
 * Which watch events of children (and pods) are worth a reconcile pass. Not
 * one that only brings the version this operator's own apply produced: the
 * pass that wrote it knew what it wrote, and the controller acting on it
 * (StatefulSet, Deployment, PDB, HPA) reports back with a status change of
 * its own. Not one where nothing the cache keeps changed but the
 * resourceVersion either (a PVC's binding annotations, dropped from its
 * slim form). Anything else, deletions above all, is.
 */
export class ChildEventFilter {
  /** Per object id: the resourceVersion our last write produced, until an event for the object arrives. */
  private readonly own = new Map<string, string>();

  /** This operator's write of `id` produced `resourceVersion`. */
  wrote(id: string, resourceVersion: string | undefined): void {
    if (resourceVersion) this.own.set(id, resourceVersion);
  }

  needsPass(id: string, type: InformerEventType, obj: any, old?: any): boolean {
    // Whatever the event, it is the object's next version: the entry has served.
    const own = this.own.get(id);
    this.own.delete(id);
    if (type === 'DELETED') return true;
    if (own !== undefined && own === obj.metadata?.resourceVersion) return false;
    return !(type === 'MODIFIED' && old && equalButVersion(old, obj));
  }
}

/** Deep equality of two versions of one object, resourceVersion aside. */
function equalButVersion(a: any, b: any): boolean {
  const { resourceVersion: _a, ...ma } = a.metadata ?? {};
  const { resourceVersion: _b, ...mb } = b.metadata ?? {};
  return deepEqual({ ...a, metadata: ma }, { ...b, metadata: mb });
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(k => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as any)[k], (b as any)[k]));
}
