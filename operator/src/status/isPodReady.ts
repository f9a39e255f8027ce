/** A pod that counts as serving: Ready, and not on its way out. */
export function isPodReady(pod: any): boolean {
  return (
    !pod?.metadata?.deletionTimestamp &&
    (pod?.status?.conditions ?? []).some(
      (c: any) => c.type === 'Ready' && c.status === 'True',
    )
  );
}
