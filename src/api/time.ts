/** RFC 3339 with second precision, as metav1.Time serialises. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as metav1.MicroTime serialises (Leases, events.k8s.io). */
export function rfc3339Micro(d: Date): string {
  return d.toISOString().replace(/Z$/, '000Z');
}
