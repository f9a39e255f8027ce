const SUFFIX: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/**
 * Value of a Kubernetes quantity ("500m", "2Gi", 3), or undefined if it is not one.
 *
 * @public
 */
export function parseQuantity(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(v);
  if (!m) return undefined;
  const base = Number(m[1] + (m[2] ?? ''));
  return base * SUFFIX[m[3] ?? ''];
}

function scalarEqual(want: unknown, have: unknown): boolean {
  if (want === have) return true;
  // The API server canonicalises quantities ("1000m" is stored as "1").
  const a = parseQuantity(want);
  const b = parseQuantity(have);
  return a !== undefined && b !== undefined && Math.abs(a - b) <= Math.abs(a) * 1e-12;
}

/**
 * True when every field of `want` is present with the same value in `have`.
 * Fields the server defaults (or others own) may exist only in `have`; lists
 * must match in length and order, each element compared the same way. This is
 * how a pass decides that applying would change nothing, so a steady state
 * issues no writes at all.
 *
 * @public
 */
export function isSubset(want: unknown, have: unknown): boolean {
  if (want === undefined) return true;
  if (Array.isArray(want)) {
    return (
      Array.isArray(have) &&
      want.length === have.length &&
      want.every((w, i) => isSubset(w, have[i]))
    );
  }
  if (want !== null && typeof want === 'object') {
    if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
    return Object.entries(want as Record<string, unknown>).every(([k, v]) =>
      isSubset(v, (have as Record<string, unknown>)[k]),
    );
  }
  return scalarEqual(want, have);
}
