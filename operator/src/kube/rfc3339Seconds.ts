/** A time as Kubernetes writes it in objects (metav1.Time): RFC 3339 in UTC, whole seconds. */
export function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}
