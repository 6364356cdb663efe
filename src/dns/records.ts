// Kubernetes objects → DNS records, as github.com/kubernetes/dns docs/specification.md
// describes them. Pure functions of the objects given; sources.ts feeds them from informers.
import { isIPv4, isIPv6 } from 'node:net';
import type { KubeObject } from '../api/object.js';
import { dashed, reverseName } from './names.js';
import type { RR } from './zone.js';

export interface RecordConfig {
  /** The cluster domain, normalized (`cluster.local`). */
  domain: string;
  ttl: number;
}

/** How a headless Service's endpoints find their pods (for spec.hostname/subdomain). */
export type PodLookup = (namespace: string, name: string) => KubeObject | undefined;

const lower = (s: string) => s.toLowerCase();

function address(name: string, ip: string, ttl: number): RR | undefined {
  if (isIPv4(ip)) return { name, type: 'A', class: 'IN', ttl, data: ip };
  if (isIPv6(ip)) return { name, type: 'AAAA', class: 'IN', ttl, data: ip };
  return undefined;
}

function ptr(ip: string, target: string, ttl: number): RR | undefined {
  const name = reverseName(ip);
  return name ? { name, type: 'PTR', class: 'IN', ttl, data: target } : undefined;
}

function srv(name: string, port: number, target: string, ttl: number): RR {
  // Priority and weight are not prescribed; one weight per target spreads load evenly.
  return { name, type: 'SRV', class: 'IN', ttl, data: { priority: 0, weight: 100, port, target } };
}

export function serviceName(cfg: RecordConfig, namespace: string, name: string): string {
  return `${lower(name)}.${lower(namespace)}.svc.${cfg.domain}`;
}

export function isHeadless(svc: KubeObject): boolean {
  return svc.spec?.clusterIP === 'None';
}

/** Every record one Service owns, given the EndpointSlices that name it. */
export function serviceRecords(cfg: RecordConfig, svc: KubeObject, slices: KubeObject[], pods: PodLookup): { records: RR[]; pods: string[] } {
  const ns = svc.metadata.namespace ?? 'default';
  const fqdn = serviceName(cfg, ns, svc.metadata.name!);
  const { ttl } = cfg;
  const out: RR[] = [];
  const push = (r: RR | undefined) => { if (r) out.push(r); };
  const spec = svc.spec ?? {};

  if (spec.type === 'ExternalName') {
    if (spec.externalName) out.push({ name: fqdn, type: 'CNAME', class: 'IN', ttl, data: lower(String(spec.externalName)).replace(/\.$/, '') });
    return { records: out, pods: [] };
  }

  if (!isHeadless(svc)) {
    const ips: string[] = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
    if (ips.length === 0) return { records: out, pods: [] };
    for (const ip of ips) {
      push(address(fqdn, ip, ttl));
      push(ptr(ip, fqdn, ttl));
    }
    for (const p of spec.ports ?? []) {
      if (!p.name) continue;
      out.push(srv(`_${lower(p.name)}._${lower(p.protocol ?? 'TCP')}.${fqdn}`, p.port, fqdn, ttl));
    }
    return { records: out, pods: [] };
  }

  // Headless: the ready endpoints (all of them with publishNotReadyAddresses), each also
  // under its hostname, with SRV records per named port per endpoint.
  const tolerate = spec.publishNotReadyAddresses === true
    || svc.metadata.annotations?.['service.alpha.kubernetes.io/tolerate-unready-endpoints'] === 'true';
  const podKeys: string[] = [];
  const seenHost = new Set<string>();
  for (const slice of sortedSlices(slices)) {
    const ports = (slice.ports ?? []).filter((p: { name?: string; port?: number } | null) => p?.name && p.port);
    for (const ep of slice.endpoints ?? []) {
      if (!tolerate && ep.conditions?.ready === false) continue;
      const ref = ep.targetRef;
      let hostname: string | undefined = ep.hostname;
      if (ref?.kind === 'Pod' && ref.name) {
        const podNs = ref.namespace ?? ns;
        podKeys.push(`${podNs}/${ref.name}`);
        if (!hostname) {
          const pod = pods(podNs, ref.name);
          if (pod?.spec?.hostname && pod.spec.subdomain === svc.metadata.name && podNs === ns) hostname = pod.spec.hostname;
        }
      }
      for (const ip of ep.addresses ?? []) {
        const host = `${lower(hostname ?? dashed(ip))}.${fqdn}`;
        push(address(fqdn, ip, ttl));
        push(address(host, ip, ttl));
        push(ptr(ip, host, ttl));
        if (seenHost.has(`${host}|${ip}`)) continue;
        seenHost.add(`${host}|${ip}`);
        for (const p of ports) out.push(srv(`_${lower(p.name)}._${lower(p.protocol ?? 'TCP')}.${fqdn}`, p.port, host, ttl));
      }
    }
  }
  return { records: out, pods: podKeys };
}

/** A pod's own records: `a-b-c-d.ns.pod.<zone>` and the PTR back to it. */
export function podRecords(cfg: RecordConfig, pod: KubeObject): RR[] {
  if (pod.spec?.hostNetwork) return [];
  const ips: string[] = (pod.status?.podIPs ?? []).map((p: { ip?: string }) => p.ip).filter(Boolean);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  const out: RR[] = [];
  for (const ip of ips) {
    const name = `${dashed(ip)}.${lower(pod.metadata.namespace ?? 'default')}.pod.${cfg.domain}`;
    const a = address(name, ip, cfg.ttl);
    const p = ptr(ip, name, cfg.ttl);
    if (a) out.push(a);
    if (p) out.push(p);
  }
  return out;
}

function sortedSlices(slices: KubeObject[]): KubeObject[] {
  // Stable order, so the same set of objects gives the same records whatever order they came in.
  return [...slices].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}
