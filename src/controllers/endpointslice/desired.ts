// The endpoints a Service should have in one address family, grouped by port set: Pods
// whose named target ports resolve to different numbers land in different groups, and each
// group becomes its own EndpointSlice(s).
import {
  canonical, findPort, isPodReady, podAddresses, podHostname, podTargetRef, shouldPodBeInEndpoints,
  type AddressType, type ServicePort,
} from './pods.js';
import type { Pod, Service } from '../../api/kinds.js';
import type * as discovery from 'kubernetes-types/discovery/v1.js';

export interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface Endpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  targetRef?: { kind: string; namespace: string; name: string; uid: string };
  nodeName?: string;
  zone?: string;
}

export interface EndpointGroup {
  ports: EndpointPort[];
  /** By endpointKey. */
  endpoints: Map<string, Endpoint>;
}

export const zoneLabel = 'topology.kubernetes.io/zone';

/** The Service's ports as this Pod serves them; ports the Pod cannot resolve are left out. */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of (svc.spec?.ports ?? []) as ServicePort[]) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({ name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
  }
  return out;
}

/** Identifies a port set regardless of order. */
export function portKey(ports: readonly discovery.EndpointPort[] | undefined): string {
  return canonical([...(ports ?? [])].map((p) => canonical(p)).sort());
}

/** Identifies an endpoint across updates: the Pod it stands for, else its addresses. */
export function endpointKey(ep: Endpoint): string {
  return ep.targetRef?.uid ? `uid:${ep.targetRef.uid}` : `addr:${[...ep.addresses].sort().join(',')}`;
}

/**
 * Kubernetes' podToEndpoint: serving follows the Pod's Ready condition, terminating its
 * deletionTimestamp, and ready is serving and not terminating — or always true when the
 * Service publishes not-ready addresses.
 */
export function podToEndpoint(svc: Service, pod: Pod, type: AddressType, zoneOf: (node: string) => string | undefined): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = { addresses: podAddresses(pod, type), conditions: { ready, serving, terminating }, targetRef: podTargetRef(pod) };
  const hostname = podHostname(pod, svc);
  if (hostname) ep.hostname = hostname;
  const nodeName = pod.spec?.nodeName as string | undefined;
  if (nodeName) {
    ep.nodeName = nodeName;
    const zone = zoneOf(nodeName);
    if (zone) ep.zone = zone;
  }
  return ep;
}

/** Desired endpoints of `svc` in family `type`, from the Pods it selects, by port set. */
export function desiredEndpoints(svc: Service, pods: readonly Pod[], type: AddressType, zoneOf: (node: string) => string | undefined): Map<string, EndpointGroup> {
  const groups = new Map<string, EndpointGroup>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ep = podToEndpoint(svc, pod, type, zoneOf);
    if (!ep.addresses.length) continue;
    const ports = endpointPorts(svc, pod);
    const key = portKey(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, endpoints: new Map() }));
    g.endpoints.set(endpointKey(ep), ep);
  }
  return groups;
}
