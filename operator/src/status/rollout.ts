/**
 * The Deployment's own verdict that its rollout stalled.
 *
 * @public
 */
export function stalledRollout(deploy: any): string | undefined {
  const c = (deploy?.status?.conditions ?? []).find((x: any) => x.type === 'Progressing');
  return c?.status === 'False' && c.reason === 'ProgressDeadlineExceeded' ? c.message ?? c.reason : undefined;
}

/** Every replica is on the current template and none is surplus (ready or not). */
export function onCurrentTemplate(obj: any, desired: number): boolean {
  if (!obj) return false;
  const s = obj.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= (obj.metadata?.generation ?? 0) &&
    (s.updatedReplicas ?? 0) >= desired &&
    (s.replicas ?? 0) === desired
  );
}

/** @public */
export function rolloutComplete(obj: any, desired: number): boolean {
  return onCurrentTemplate(obj, desired) && (obj.status?.readyReplicas ?? 0) >= desired;
}

