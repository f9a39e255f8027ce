/**
 * How spec.inference.replicas splits between the stable servers and a
 * canary's. The canary gets weight percent of them, at least one while its
 * weight is above 0 and at least one fewer than all while it is below 100
 * (the split's precision is one server). The stable servers make room only
 * for canary servers that are ready, so a canary that never turns ready
 * takes nothing from them; below weight 100 one stable server always stays.
 */
export function splitReplicas(total: number, weight: number, canaryReady: number): { stable: number; canary: number } {
  if (total <= 0 || weight <= 0) return { stable: Math.max(total, 0), canary: 0 };
  const canary = weight >= 100 ? total : Math.min(Math.max(Math.round((total * weight) / 100), 1), Math.max(total - 1, 1));
  const stable = Math.max(total - Math.min(canaryReady, canary), weight < 100 ? 1 : 0);
  return { stable, canary };
}
