// What a Pod contributes to a Service's endpoints, as Kubernetes decides it: whether it is
// listed at all, its readiness, its addresses per IP family, the port number behind each
// Service port, and its DNS hostname. Shared by the EndpointSlice and Endpoints controllers.
import type { KubeObject } from '../../api/object.js';
import { matches, parseSelector } from '../../api/labels.js';

export type AddressType = 'IPv4' | 'IPv6';

export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
  appProtocol?: string;
}

/** The Service's selector as a label map; undefined for Services without one (user-managed endpoints). */
export function serviceSelector(svc: KubeObject): Record<string, string> | undefined {
  const sel = svc.spec?.selector as Record<string, string> | undefined;
  return sel && Object.keys(sel).length ? sel : undefined;
}

/** Services whose endpoints this controller family computes: a selector and not an ExternalName. */
export function managesEndpoints(svc: KubeObject): boolean {
  return !!serviceSelector(svc) && svc.spec?.type !== 'ExternalName';
}

export function selectsPod(svc: KubeObject, pod: KubeObject): boolean {
  const sel = serviceSelector(svc);
  if (!sel || svc.metadata.namespace !== pod.metadata.namespace) return false;
  return matches(parseSelector(selectorText(sel)), pod.metadata.labels);
}

export function selectorText(sel: Record<string, string>): string {
  return Object.entries(sel).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(',');
}

export function isPodReady(pod: KubeObject): boolean {
  return ((pod.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True');
}

function podIPList(pod: KubeObject): string[] {
  const ips = ((pod.status?.podIPs ?? []) as { ip: string }[]).map((p) => p.ip).filter(Boolean);
  if (!ips.length && pod.status?.podIP) ips.push(pod.status.podIP as string);
  return ips;
}

/**
 * Kubernetes' ShouldPodBeInEndpoints: a Pod that has finished (Succeeded/Failed) or has no
 * IP yet is never an endpoint; a terminating one only when `includeTerminating`.
 */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!podIPList(pod).length) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  return true;
}

export const isIPv6 = (ip: string): boolean => ip.includes(':');

/** The Pod's addresses of one family (status.podIPs, else status.podIP). */
export function podAddresses(pod: KubeObject, type: AddressType): string[] {
  return podIPList(pod).filter((ip) => isIPv6(ip) === (type === 'IPv6'));
}

/** The address families a Service's endpoints are published in. */
export function serviceAddressTypes(svc: KubeObject): AddressType[] {
  const fams = ((svc.spec?.ipFamilies ?? []) as string[]).filter((f): f is AddressType => f === 'IPv4' || f === 'IPv6');
  if (fams.length) return fams;
  const ip = svc.spec?.clusterIP as string | undefined;
  return [ip && ip !== 'None' && isIPv6(ip) ? 'IPv6' : 'IPv4'];
}

/**
 * The Pod port behind a Service port: a numeric targetPort as is, a named one looked up in
 * the Pod's container ports (same name and protocol), none given → the Service port.
 * Undefined when the Pod has no such named port.
 */
export function findPort(pod: KubeObject, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  const protocol = sp.protocol ?? 'TCP';
  const containers = [
    ...((pod.spec?.containers ?? []) as KubeObject['spec'][]),
    // Sidecars (restartable init containers) serve traffic too.
    ...((pod.spec?.initContainers ?? []) as KubeObject['spec'][]).filter((c) => c.restartPolicy === 'Always'),
  ];
  for (const c of containers) {
    for (const p of (c.ports ?? []) as { name?: string; containerPort: number; protocol?: string }[]) {
      if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
    }
  }
  return undefined;
}

/** Kubernetes' ShouldSetHostname: a Pod with spec.hostname whose spec.subdomain names this Service. */
export function podHostname(pod: KubeObject, svc: KubeObject): string | undefined {
  const hostname = pod.spec?.hostname as string | undefined;
  if (hostname && pod.spec?.subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace) return hostname;
  return undefined;
}

export function podTargetRef(pod: KubeObject): { kind: 'Pod'; namespace: string; name: string; uid: string } {
  return { kind: 'Pod', namespace: pod.metadata.namespace as string, name: pod.metadata.name as string, uid: pod.metadata.uid as string };
}

/** A JSON text with object keys sorted, for order-independent comparison and keys. */
export { stableStringify as canonical } from '../../util/index.js';
