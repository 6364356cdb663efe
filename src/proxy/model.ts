// Services + EndpointSlices → what this node must do for each service port. A pure function:
// the nftables and iptables renderers both start from its result.
import { createHash } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { ServiceSpec } from 'kubernetes-types/core/v1.js';

export type Protocol = 'tcp' | 'udp' | 'sctp';

export interface ProxyConfig {
  /** This node's name (`--hostname-override`): endpoints with this nodeName are local. */
  nodeName: string;
  /** `--cluster-cidr`: traffic to a ClusterIP from outside it is masqueraded. */
  clusterCIDR?: string;
  /** `--masquerade-all`. */
  masqueradeAll?: boolean;
  /** `--nodeport-addresses` as CIDRs; empty means every local address. */
  nodePortAddresses?: string[];
}

export interface EndpointTarget {
  ip: string;
  port: number;
  /** On another node (the slice names one): such an endpoint can never be its own client here. */
  remote?: true;
}

export interface ServicePortPlan {
  /** `namespace/name:portName/protocol`, stable across syncs. */
  id: string;
  /** Short hash of id, for chain names. */
  hash: string;
  protocol: Protocol;
  clusterIPs: string[];
  port: number;
  nodePort?: number;
  /** ClientIP affinity timeout in seconds, when sessionAffinity is ClientIP. */
  affinitySeconds?: number;
  /** Endpoints for traffic to the ClusterIP (internalTrafficPolicy applied). */
  clusterEndpoints: EndpointTarget[];
  /** Endpoints for NodePort traffic (externalTrafficPolicy applied). */
  nodePortEndpoints: EndpointTarget[];
  /** Has any endpoint at all (anywhere): no → reject; yes but none usable here → drop. */
  hasEndpoints: boolean;
  externalLocal: boolean;
}

type Obj = { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> }; spec?: ServiceSpec };

interface SlicePort { name?: string; port?: number; protocol?: string }
interface SliceEndpoint {
  addresses?: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  nodeName?: string;
}
export interface SliceLike {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  addressType?: string;
  ports?: SlicePort[] | null;
  endpoints?: SliceEndpoint[] | null;
}

export const serviceNameLabel = 'kubernetes.io/service-name';
const DEFAULT_AFFINITY_SECONDS = 10800;

export const shortHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

interface Candidate extends EndpointTarget { ready: boolean; serving: boolean; terminating: boolean; local: boolean; remote?: true }

/** kube-proxy's rule: ready endpoints; if there are none, serving-and-terminating ones. */
function usable(cands: Candidate[]): EndpointTarget[] {
  const ready = cands.filter((c) => c.ready);
  const chosen = ready.length ? ready : cands.filter((c) => c.serving && c.terminating);
  const seen = new Set<string>();
  const out: EndpointTarget[] = [];
  for (const c of chosen) {
    const k = `${c.ip}:${c.port}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(c.remote ? { ip: c.ip, port: c.port, remote: true } : { ip: c.ip, port: c.port });
  }
  return out.sort((a, b) => (a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1));
}

function sliceCandidates(slices: readonly SliceLike[], portName: string, protocol: string, nodeName: string): Candidate[] {
  const out: Candidate[] = [];
  for (const sl of slices) {
    if (sl.addressType && sl.addressType !== 'IPv4') continue;
    const p = (sl.ports ?? []).find((x) => (x.name ?? '') === portName && (x.protocol ?? 'TCP') === protocol);
    if (!p || p.port === undefined || p.port === null) continue;
    for (const ep of sl.endpoints ?? []) {
      const ip = ep.addresses?.[0];
      if (!ip || !isIPv4(ip)) continue;
      const ready = ep.conditions?.ready ?? true;
      out.push({
        ip, port: p.port, ready,
        serving: ep.conditions?.serving ?? ready,
        terminating: ep.conditions?.terminating ?? false,
        local: ep.nodeName === nodeName,
        ...(ep.nodeName && ep.nodeName !== nodeName ? { remote: true as const } : {}),
      });
    }
  }
  return out;
}

/**
 * One plan per (service, port) this proxy handles: IPv4 ClusterIP/NodePort/LoadBalancer
 * services with a cluster IP (headless and ExternalName services have nothing to proxy).
 * Output is sorted by id so renderers produce the same order whatever the input order.
 */
export function buildPlans(services: readonly Obj[], slices: readonly SliceLike[], cfg: ProxyConfig): ServicePortPlan[] {
  const byService = new Map<string, SliceLike[]>();
  for (const sl of slices) {
    const svc = sl.metadata?.labels?.[serviceNameLabel];
    if (!svc) continue;
    const key = `${sl.metadata?.namespace ?? ''}/${svc}`;
    let list = byService.get(key);
    if (!list) byService.set(key, (list = []));
    list.push(sl);
  }
  const plans: ServicePortPlan[] = [];
  for (const svc of services) {
    const spec = svc.spec ?? {};
    const type = spec.type ?? 'ClusterIP';
    if (type === 'ExternalName') continue;
    const ips: string[] = (spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : []).filter((ip: string) => isIPv4(ip));
    if (!ips.length) continue; // headless ("None") or IPv6-only
    const ns = svc.metadata?.namespace ?? '', name = svc.metadata?.name ?? '';
    const svcSlices = byService.get(`${ns}/${name}`) ?? [];
    const affinity = spec.sessionAffinity === 'ClientIP'
      ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_SECONDS) : undefined;
    const externalLocal = (spec.externalTrafficPolicy === 'Local') && (type === 'NodePort' || type === 'LoadBalancer');
    const internalLocal = spec.internalTrafficPolicy === 'Local';
    for (const port of spec.ports ?? []) {
      const protocol = String(port.protocol ?? 'TCP');
      if (protocol !== 'TCP' && protocol !== 'UDP' && protocol !== 'SCTP') continue;
      const portName = port.name ?? '';
      const cands = sliceCandidates(svcSlices, portName, protocol, cfg.nodeName);
      const all = usable(cands);
      const local = usable(cands.filter((c) => c.local));
      const id = `${ns}/${name}:${portName}/${protocol.toLowerCase()}`;
      const nodePort = (type === 'NodePort' || type === 'LoadBalancer') && port.nodePort ? Number(port.nodePort) : undefined;
      plans.push({
        id, hash: shortHash(id), protocol: protocol.toLowerCase() as Protocol, clusterIPs: ips, port: Number(port.port),
        ...(nodePort ? { nodePort } : {}),
        ...(affinity !== undefined ? { affinitySeconds: affinity } : {}),
        clusterEndpoints: internalLocal ? local : all,
        nodePortEndpoints: externalLocal ? local : all,
        hasEndpoints: all.length > 0,
        externalLocal,
      });
    }
  }
  return plans.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
