/**
 * What this operator last wrote to each object, until its informer shows
 * that write. A pass that runs before the watch event of the previous pass's
 * write has arrived (another event queued the key meanwhile) would otherwise
 * see the object as it was, write the same thing again and record its Events
 * twice. resourceVersions are only compared for equality, as the API
 * conventions require.
 */
export class LastWrites<T> {
  private readonly entries = new Map<string, { replaced?: string; written?: string; value: T }>();

  /**
   * Remembers that a write replaced `replacedVersion` (undefined: the object
   * was created) with `writtenVersion`, carrying `value`.
   */
  remember(id: string, replacedVersion: string | undefined, writtenVersion: string | undefined, value: T) {
    if (writtenVersion !== undefined && writtenVersion === replacedVersion) return; // a no-op write
    this.entries.set(id, { replaced: replacedVersion, written: writtenVersion, value });
  }

  /**
   * The value last written, while the cache shows either the version that
   * write replaced or the write itself; anything else means someone has
   * written since, and the entry is dropped.
   */
  pending(id: string, cachedVersion: string | undefined): T | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    if (cachedVersion === e.replaced || cachedVersion === e.written) return e.value;
    this.entries.delete(id);
    return undefined;
  }

  /**
   * The informer delivered a change of the object: from here on the cache is
   * the truth (this also covers an object deleted right after its creation,
   * which would look like the version a create replaced).
   */
  observed(id: string) {
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
