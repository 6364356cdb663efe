// "Follow a packet": the hops a connection from a pod to a Service port takes, one list per
// endpoint the proxy may pick, read off the view model (so off the same routes and plans the
// agents program). The order is the kernel's: the packet leaves the pod into its host veth, is
// DNATed in prerouting to an endpoint, then routed — to a local veth, to a peer directly, or
// into the VXLAN device — and is judged by policy against the endpoint pod after DNAT.
import type { ViewLink, ViewModel, ViewPod, ViewService } from './model.js';

export interface Hop {
  kind: 'pod' | 'veth' | 'policy' | 'dnat' | 'route' | 'vxlan' | 'direct' | 'drop';
  node?: string;
  text: string;
}

export interface PacketPath {
  from: string;
  service: string;
  port: number;
  protocol: string;
  /** One path per endpoint the load balancer may choose. */
  paths: { endpoint: string; hops: Hop[] }[];
  /** Why the packet goes nowhere (no such pod or port, no endpoints, ...). */
  error?: string;
}

function findPod(view: ViewModel, ref: string): ViewPod | undefined {
  const [ns, name] = ref.split('/');
  for (const n of [...view.nodes.map((x) => x.pods), view.pending]) {
    const p = n.find((x) => x.namespace === ns && x.name === name);
    if (p) return p;
  }
  return undefined;
}

function findService(view: ViewModel, ref: string): ViewService | undefined {
  const [ns, name] = ref.split('/');
  return view.services.find((s) => s.namespace === ns && s.name === name);
}

export function followPacket(view: ViewModel, fromPod: string, service: string, port?: number): PacketPath {
  const src = findPod(view, fromPod);
  const svc = findService(view, service);
  const sp = svc?.ports.find((p) => port === undefined || p.port === port);
  const out: PacketPath = { from: fromPod, service, port: sp?.port ?? port ?? 0, protocol: sp?.protocol ?? 'TCP', paths: [] };
  if (!src) return { ...out, error: `no pod ${fromPod}` };
  if (!src.node || !src.ip) return { ...out, error: `pod ${fromPod} is not running on a node yet` };
  if (!svc) return { ...out, error: `no service ${service}` };
  if (!sp) return { ...out, error: `service ${service} has no port ${port}` };
  if (!svc.clusterIP) return { ...out, error: `service ${service} has no ClusterIP (headless): clients connect to the pods directly` };
  const start: Hop[] = [{ kind: 'pod', node: src.node, text: `${fromPod} ${src.ip} → ${svc.clusterIP}:${sp.port}/${sp.protocol}` }];
  if (src.hostNetwork) start.push({ kind: 'route', node: src.node, text: `host network: the packet leaves from ${src.node}'s own namespace` });
  else start.push({ kind: 'veth', node: src.node, text: `eth0 → host veth ${src.veth} on ${src.node}` });
  const ready = svc.endpoints.filter((e) => e.ready);
  if (!ready.length) {
    const why = svc.endpoints.length ? 'its endpoints are not ready: dropped' : 'no endpoints: rejected (ICMP port unreachable)';
    return { ...out, paths: [{ endpoint: '-', hops: [...start, { kind: 'drop', node: src.node, text: `${service} has ${why}` }] }] };
  }
  const links = new Map<string, ViewLink>(view.links.map((l) => [`${l.from}>${l.to}`, l]));
  for (const ep of ready) {
    const target = ep.port ?? sp.port;
    const hops: Hop[] = [...start, {
      kind: 'dnat', node: src.node,
      text: `capstan-proxy: ${svc.clusterIP}:${sp.port} → ${ep.ip}:${target} (1 of ${ready.length}, numgen random)`,
    }];
    if (src.egressPolicies.length) hops.push({ kind: 'policy', node: src.node, text: `egress of ${fromPod} judged by ${src.egressPolicies.join(', ')}` });
    const dst = ep.pod ? findPod(view, ep.pod) : undefined;
    const dstNode = ep.node ?? dst?.node;
    if (!dstNode) hops.push({ kind: 'route', node: src.node, text: `${ep.ip} is not a pod on a known node: routed by ${src.node}'s table` });
    else if (dstNode === src.node) hops.push({ kind: 'route', node: src.node, text: `local: /32 route to ${dst?.veth ?? ep.ip}` });
    else {
      const link = links.get(`${src.node}>${dstNode}`);
      if (!link || link.path === 'none') {
        hops.push({ kind: 'drop', node: src.node, text: `no route from ${src.node} to ${dstNode}'s pods${link?.reason ? `: ${link.reason}` : ''}` });
        out.paths.push({ endpoint: `${ep.ip}:${target}`, hops });
        continue;
      }
      if (link.path === 'vxlan') hops.push({ kind: 'vxlan', node: src.node, text: `route via ${link.via} dev ${link.dev}: VXLAN (UDP 4789) to ${dstNode}` });
      else hops.push({ kind: 'direct', node: src.node, text: `route via ${link.via} on the uplink: direct to ${dstNode}` });
      hops.push({ kind: 'route', node: dstNode, text: `${dstNode}: /32 route to ${dst?.veth ?? ep.ip}` });
    }
    if (dst?.ingressPolicies.length) hops.push({ kind: 'policy', node: dstNode, text: `ingress of ${ep.pod} judged by ${dst.ingressPolicies.join(', ')}` });
    hops.push({ kind: 'pod', node: dstNode, text: `${ep.pod ?? ep.ip} ${ep.ip}:${target}` });
    out.paths.push({ endpoint: `${ep.ip}:${target}`, hops });
  }
  return out;
}
