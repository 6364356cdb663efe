// One FakeClientset shared by several RoutesManagers, one per "node", each with its own Node
// informer — the shape of N agents watching one API server. Used by the fake-netlink tests
// and the kernel test alike.
import { FakeClientset, SharedInformerFactory, realClock, resources, type Clock } from '../../src/client/index.js';
import type { KubeObject } from '../../src/api/object.js';
import { logger } from '../../src/log/index.js';
import type { Netlink } from '../../src/netlink/index.js';
import type { Cidr } from '../../src/network/cidr.js';
import { RoutesManager, type EncapsulationMode } from '../../src/network/routes/index.js';

export interface ManagedNode {
  name: string;
  netns: string;
  manager: RoutesManager;
  informers: SharedInformerFactory;
}

export async function startCluster(t: { teardown(fn: () => unknown): void }, o: {
  nodes: KubeObject[]; netns: Record<string, string>; netlink: Netlink; clock?: Clock; mode?: EncapsulationMode; resyncMs?: number; quiet?: boolean;
  clusterCIDR?: Cidr;
}) {
  const clock = o.clock ?? realClock;
  const fake = new FakeClientset(clock);
  fake.seed(resources.nodes, ...o.nodes);
  const managed: ManagedNode[] = [];
  for (const n of o.nodes) {
    const name = n.metadata.name!;
    const informers = new SharedInformerFactory(fake, { clock, resyncMs: 0 });
    const nodes = informers.informerFor(resources.nodes);
    const log = logger('routes', { node: name }, o.quiet === false ? (l) => process.stderr.write(l) : () => undefined);
    const manager = new RoutesManager({ netlink: o.netlink, netns: o.netns[name]!, nodeName: name, nodes, clients: fake, mode: o.mode, clusterCIDR: o.clusterCIDR, clock, resyncMs: o.resyncMs, log });
    informers.start();
    managed.push({ name, netns: o.netns[name]!, manager, informers });
  }
  for (const m of managed) await m.informers.waitForCacheSync();
  for (const m of managed) m.manager.start();
  t.teardown(async () => {
    for (const m of managed) {
      await m.manager.stop();
      await m.informers.stop();
    }
    fake.close();
  });
  const by = (name: string) => managed.find((m) => m.name === name)!;
  return { fake, managed, by, nodesAPI: fake.resource(resources.nodes) };
}

export function node(name: string, ip: string | undefined, podCIDR: string | undefined, ann: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name, annotations: ann },
    spec: podCIDR ? { podCIDR } : {},
    status: { addresses: [...(ip ? [{ type: 'InternalIP', address: ip }] : []), { type: 'Hostname', address: name }] },
  };
}
