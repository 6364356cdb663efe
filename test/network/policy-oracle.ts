// NetworkPolicy semantics written a second time, straight from the API reference and
// without capstan's model: what the truth-table tests compare the data plane against.
// A flow is allowed when the source's egress and the destination's ingress both allow it;
// a direction allows when no policy of the pod's namespace selects the pod for it, or some
// rule of some selecting policy admits the peer and the port.
import type { Namespace, NetworkPolicy, Pod } from '../../src/api/kinds.js';

export interface Endpoint {
  ip: string;
  /** Set when the address is a pod's. */
  pod?: Pod;
}

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | null | undefined;

export function selectorMatches(sel: Selector, labels: Record<string, string> = {}): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const ok = e.operator === 'In' ? has && (e.values ?? []).includes(labels[e.key]!)
      : e.operator === 'NotIn' ? !has || !(e.values ?? []).includes(labels[e.key]!)
      : e.operator === 'Exists' ? has : !has;
    if (!ok) return false;
  }
  return true;
}

function ipNumber(ip: string): number {
  return ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
}

export function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipNumber(base!) / size) * size;
  const a = ipNumber(ip);
  return a >= start && a < start + size;
}

function effectiveTypes(p: NetworkPolicy): string[] {
  if (p.spec?.policyTypes?.length) return p.spec.policyTypes;
  return p.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

export class Oracle {
  constructor(private readonly namespaces: Namespace[], private readonly policies: NetworkPolicy[]) {}

  private nsLabels(name: string | undefined): Record<string, string> | undefined {
    return this.namespaces.find((n) => n.metadata.name === name)?.metadata.labels ?? (this.namespaces.some((n) => n.metadata.name === name) ? {} : undefined);
  }

  private peerMatches(policy: NetworkPolicy, peers: any[] | undefined, other: Endpoint): boolean {
    if (!peers || peers.length === 0) return true;
    return peers.some((peer) => {
      if (peer.ipBlock) return inCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((x: string) => inCidr(other.ip, x));
      if (!other.pod) return false;
      const ns = other.pod.metadata.namespace;
      if (peer.namespaceSelector) {
        const labels = this.nsLabels(ns);
        if (!labels || !selectorMatches(peer.namespaceSelector, labels)) return false;
      } else if (ns !== policy.metadata.namespace) return false;
      return !peer.podSelector || selectorMatches(peer.podSelector, other.pod.metadata.labels ?? {});
    });
  }

  private portMatches(ports: any[] | undefined, receiver: Pod | undefined, port: number, protocol: string): boolean {
    if (!ports || ports.length === 0) return true;
    return ports.some((p) => {
      if ((p.protocol ?? 'TCP') !== protocol) return false;
      if (p.port === undefined || p.port === null) return true;
      if (typeof p.port === 'number') return port >= p.port && port <= (p.endPort ?? p.port);
      // A named port means the receiving pod's container port of that name and protocol.
      return (receiver?.spec?.containers ?? []).some((c) => (c.ports ?? []).some((cp) => cp.name === p.port && (cp.protocol ?? 'TCP') === protocol && cp.containerPort === port));
    });
  }

  private directionAllows(pod: Pod, type: 'Ingress' | 'Egress', other: Endpoint, port: number, protocol: string): boolean {
    const selecting = this.policies.filter((p) => p.metadata.namespace === pod.metadata.namespace
      && selectorMatches(p.spec?.podSelector ?? {}, pod.metadata.labels ?? {}) && effectiveTypes(p).includes(type));
    if (!selecting.length) return true;
    const receiver = type === 'Ingress' ? pod : other.pod;
    return selecting.some((p) => ((type === 'Ingress' ? p.spec?.ingress : p.spec?.egress) ?? []).some((rule: any) =>
      this.peerMatches(p, type === 'Ingress' ? rule.from : rule.to, other) && this.portMatches(rule.ports, receiver, port, protocol)));
  }

  allowed(src: Endpoint, dst: Endpoint, port: number, protocol: 'TCP' | 'UDP' | 'SCTP'): boolean {
    return (!src.pod || this.directionAllows(src.pod, 'Egress', dst, port, protocol))
      && (!dst.pod || this.directionAllows(dst.pod, 'Ingress', src, port, protocol));
  }
}
