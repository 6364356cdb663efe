// A Service's core/v1 Endpoints subsets, as Kubernetes' endpoints controller computes them:
// each selected Pod once per port it serves, then repacked so that addresses with the same
// port set share one subset, ready ones in `addresses`, the rest in `notReadyAddresses`.
import {
  canonical, findPort, isPodReady, podAddresses, podHostname, podTargetRef, serviceAddressTypes, shouldPodBeInEndpoints,
  type ServicePort,
} from '../endpointslice/index.js';
import type { Pod, Service } from '../../api/kinds.js';

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: { kind: string; namespace: string; name: string; uid: string };
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** Kubernetes caps an Endpoints object at this many addresses and says so in an annotation. */
export const maxAddresses = 1000;
export const overCapacityAnnotation = 'endpoints.kubernetes.io/over-capacity';

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function address(svc: Service, pod: Pod): EndpointAddress | undefined {
  const ip = podAddresses(pod, serviceAddressTypes(svc)[0])[0];
  if (!ip) return undefined;
  const a: EndpointAddress = { ip };
  const hostname = podHostname(pod, svc);
  if (hostname) a.hostname = hostname;
  if (pod.spec?.nodeName) a.nodeName = pod.spec.nodeName;
  a.targetRef = podTargetRef(pod);
  return a;
}

interface Entry { addr: EndpointAddress; ready: boolean; ports: EndpointPort[] }

/** The subsets of `svc` from the Pods it selects, and whether some addresses were cut off. */
export function desiredSubsets(svc: Service, pods: readonly Pod[]): { subsets: EndpointSubset[]; truncated: boolean } {
  const tolerateUnready = svc.spec?.publishNotReadyAddresses === true;
  const svcPorts = (svc.spec?.ports ?? []) as ServicePort[];
  const entries: Entry[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const addr = address(svc, pod);
    if (!addr) continue;
    const ready = tolerateUnready || isPodReady(pod);
    if (!svcPorts.length) {
      // Only a headless Service lists Pods without ports (DNS records need no port).
      if (svc.spec?.clusterIP === 'None') entries.push({ addr, ready, ports: [] });
      continue;
    }
    const ports: EndpointPort[] = [];
    for (const sp of svcPorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      ports.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
    }
    if (ports.length) entries.push({ addr, ready, ports });
  }
  return repack(entries);
}

const portOrder = (a: EndpointPort, b: EndpointPort) => cmp(a.name ?? '', b.name ?? '') || a.port - b.port || cmp(a.protocol, b.protocol);
const addrOrder = (a: EndpointAddress, b: EndpointAddress) => cmp(a.ip, b.ip) || cmp(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');

function repack(entries: Entry[]): { subsets: EndpointSubset[]; truncated: boolean } {
  const bySet = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const e of entries) {
    const ports = [...e.ports].sort(portOrder);
    const key = canonical(ports);
    let g = bySet.get(key);
    if (!g) bySet.set(key, (g = { ports, ready: [], notReady: [] }));
    (e.ready ? g.ready : g.notReady).push(e.addr);
  }
  let budget = maxAddresses;
  let truncated = false;
  const subsets: EndpointSubset[] = [];
  const groups = [...bySet.entries()].sort(([a], [b]) => cmp(a, b)).map(([, g]) => g);
  // Ready addresses are kept over not-ready ones when the object is over capacity.
  for (const g of groups) {
    g.ready.sort(addrOrder);
    g.notReady.sort(addrOrder);
    if (g.ready.length > budget) { g.ready.length = budget; truncated = true; }
    budget -= g.ready.length;
  }
  for (const g of groups) {
    if (g.notReady.length > budget) { g.notReady.length = budget; truncated = true; }
    budget -= g.notReady.length;
    if (!g.ready.length && !g.notReady.length) continue;
    const s: EndpointSubset = {};
    if (g.ready.length) s.addresses = g.ready;
    if (g.notReady.length) s.notReadyAddresses = g.notReady;
    if (g.ports.length) s.ports = g.ports;
    subsets.push(s);
  }
  return { subsets, truncated };
}
