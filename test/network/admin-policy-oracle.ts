// AdminNetworkPolicy and BaselineAdminNetworkPolicy semantics written a second time, from
// network-policy-api's API reference, without capstan's model: per direction, admin policies
// by priority (ties by name), rules in order, first match decides (Pass: skip to
// NetworkPolicy); a pod NetworkPolicy isolates is judged by NetworkPolicy alone (the
// NetworkPolicy oracle); else the baseline's rules in order; else allowed.
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, Namespace, NetworkPolicy, Pod } from '../../src/api/kinds.js';
import { inCidr, Oracle, selectorMatches, type Endpoint } from './policy-oracle.js';

type Decision = 'allow' | 'deny' | 'pass' | undefined;

export class AdminOracle {
  private readonly np: Oracle;
  constructor(private readonly namespaces: Namespace[], private readonly policies: NetworkPolicy[], private readonly admin: AdminNetworkPolicy[], private readonly baseline: BaselineAdminNetworkPolicy[]) {
    this.np = new Oracle(namespaces, policies);
  }

  private nsLabels(name?: string): Record<string, string> {
    return this.namespaces.find((n) => n.metadata.name === name)?.metadata.labels ?? {};
  }

  private picks(s: any, pod: Pod | undefined): boolean {
    if (!pod) return false;
    if (s.namespaces) return selectorMatches(s.namespaces, this.nsLabels(pod.metadata.namespace));
    if (s.pods) return selectorMatches(s.pods.namespaceSelector, this.nsLabels(pod.metadata.namespace)) && selectorMatches(s.pods.podSelector, pod.metadata.labels ?? {});
    return false;
  }

  private peerMatches(peer: any, other: Endpoint): boolean {
    if (peer.networks) return peer.networks.some((c: string) => inCidr(other.ip, c));
    return this.picks(peer, other.pod);
  }

  private portMatches(ports: any[] | undefined, receiver: Pod | undefined, port: number, protocol: string): boolean {
    if (!ports) return true;
    return ports.some((p) => {
      if (p.portNumber) return (p.portNumber.protocol ?? 'TCP') === protocol && p.portNumber.port === port;
      if (p.portRange) return (p.portRange.protocol ?? 'TCP') === protocol && port >= p.portRange.start && port <= p.portRange.end;
      return (receiver?.spec?.containers ?? []).some((c) => (c.ports ?? []).some((cp) => cp.name === p.namedPort && (cp.protocol ?? 'TCP') === protocol && cp.containerPort === port));
    });
  }

  private firstMatch(rules: any[] | undefined, dir: 'ingress' | 'egress', pod: Pod, other: Endpoint, port: number, protocol: string): Decision {
    for (const r of rules ?? []) {
      const peers = dir === 'ingress' ? r.from : r.to;
      const receiver = dir === 'ingress' ? pod : other.pod;
      if (peers.some((p: any) => this.peerMatches(p, other)) && this.portMatches(r.ports, receiver, port, protocol)) return r.action.toLowerCase();
    }
    return undefined;
  }

  private isolatedByNP(pod: Pod, type: 'Ingress' | 'Egress'): boolean {
    return this.policies.some((p) => p.metadata.namespace === pod.metadata.namespace && selectorMatches(p.spec?.podSelector ?? {}, pod.metadata.labels ?? {})
      && (p.spec?.policyTypes?.length ? p.spec.policyTypes : p.spec?.egress?.length ? ['Ingress', 'Egress'] : ['Ingress']).includes(type));
  }

  /** Which tier decided and how: for the explanation test too. */
  direction(pod: Pod, dir: 'ingress' | 'egress', other: Endpoint, port: number, protocol: 'TCP' | 'UDP'): { allowed: boolean; by: string } {
    const ordered = [...this.admin].sort((a, b) => a.spec.priority - b.spec.priority || a.metadata.name!.localeCompare(b.metadata.name!));
    outer: for (const a of ordered) {
      if (!this.picks(a.spec.subject, pod)) continue;
      const d = this.firstMatch(a.spec[dir], dir, pod, other, port, protocol);
      if (d === 'pass') break outer;
      if (d) return { allowed: d === 'allow', by: `AdminNetworkPolicy/${a.metadata.name}` };
    }
    const type = dir === 'ingress' ? 'Ingress' : 'Egress';
    if (this.isolatedByNP(pod, type)) {
      // This end's direction only: the NetworkPolicy oracle's per-direction judgement.
      const allowed = (this.np as unknown as { directionAllows(p: Pod, t: string, o: Endpoint, port: number, proto: string): boolean }).directionAllows(pod, type, other, port, protocol);
      return { allowed, by: 'NetworkPolicy' };
    }
    for (const b of this.baseline.filter((x) => x.metadata.name === 'default')) {
      if (!this.picks(b.spec.subject, pod)) continue;
      const d = this.firstMatch(b.spec[dir], dir, pod, other, port, protocol);
      if (d) return { allowed: d === 'allow', by: 'BaselineAdminNetworkPolicy/default' };
    }
    return { allowed: true, by: 'default' };
  }

  allowed(src: Endpoint, dst: Endpoint, port: number, protocol: 'TCP' | 'UDP'): boolean {
    return (!src.pod || this.direction(src.pod, 'egress', dst, port, protocol).allowed)
      && (!dst.pod || this.direction(dst.pod, 'ingress', src, port, protocol).allowed);
  }
}
