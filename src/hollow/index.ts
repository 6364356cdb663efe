// Hollow nodes, after Kubernetes' kubemark: one process acting as N kubelets without
// containers. Each registers a Node, renews its Lease, and "runs" the pods bound to it
// (status Running/Ready with an address from its pod CIDR), so the control plane can be
// exercised at thousands of nodes on one machine. Each node's address is a loopback one
// where this process serves its kubelet API (logs, and clear errors for exec). See DESIGN.md.
import type { Node, Pod } from '../api/kinds.js';
import { APIError, EventRecorder, isAlreadyExists, realClock, resources, SharedInformerFactory, stripManagedFields, type ClientsetAPI, type Clock } from '../client/index.js';
import { logger, type Logger } from '../log/index.js';
import type { KeyPair } from '../pki/index.js';
import { maxHollowNodes, nodeInternalIP } from './addresses.js';
import { Heartbeats } from './heartbeat.js';
import { startHollowKubeletServer } from './kubelet-server.js';
import { Limiter } from './limiter.js';
import { nodeObject, nodeStatus, type KubeletEndpoint, type NodeShape } from './node-object.js';
import { HollowPods } from './pods.js';
import { cachedPerNode, impersonatingNode } from './identity.js';
import type { NodeStatus } from 'kubernetes-types/core/v1.js';

export { hollowKubeletVersion } from './node-object.js';
export { ensureHollowNodesPolicy, hollowNodesPolicy } from './identity.js';

export interface HollowNodesOptions {
  clients: ClientsetAPI;
  count: number;
  /** Nodes are `<prefix><i>`; default "hollow-". */
  namePrefix?: string;
  cpu?: string;
  memory?: string;
  pods?: number;
  ephemeralStorage?: string;
  /** Lease renewal period per node; default 10 s (the kubelet's). */
  heartbeatIntervalMs?: number;
  leaseDurationSeconds?: number;
  /** Node status is re-posted at least this often; default 5 min (the kubelet's nodeStatusReportFrequency). */
  statusReportIntervalMs?: number;
  /** How long a deleted pod takes to "stop" before it is removed; default 1 s. */
  terminationDelayMs?: number;
  /** Pod workers; default 16. */
  workers?: number;
  /** Registration requests in flight at most; default 64. */
  concurrency?: number;
  /**
   * Heartbeat requests in flight at most; default hollowHeartbeatConcurrency (64). The
   * client's socket pool must hold these, the registrations and the pod workers together
   * (hollowClientSockets).
   */
  heartbeatConcurrency?: number;
  /**
   * How node <name> talks to the API server. Default: as itself — `system:node:<name>` in
   * `system:nodes`, impersonated over `clients`' connections (identity.ts) — so the Node
   * authorizer and NodeRestriction judge each hollow node as they judge a kubelet.
   */
  nodeClients?: (name: string) => ClientsetAPI;
  /** Nodes that register but never renew their Lease. */
  stopHeartbeat?: string[];
  /**
   * The cluster CA: signs each node's kubelet serving certificate and is the CA its client
   * certificates must come from. Without it the kubelet API refuses every connection.
   */
  ca?: KeyPair;
  /** The port of every node's kubelet API; default 0: a free one, picked once. */
  kubeletPort?: number;
  /** Retry delay for a pod whose Secret or ConfigMap volume is missing: doubles from this up to 8×; default 1 s. */
  mountRetryMs?: number;
  clock?: Clock;
  log?: Logger;
}

export interface HollowNodesStats {
  nodes: number;
  leaseRenewals: number;
  heartbeatFailures: number;
  podsStarted: number;
  podsDeleted: number;
}

export interface HollowNodes {
  readonly names: readonly string[];
  /** The port every node's kubelet API listens on (status.daemonEndpoints.kubeletEndpoint.Port). */
  readonly kubeletPort: number;
  /** Stops one node's Lease renewals, status posts and pod handling, as if its kubelet died. */
  stopHeartbeat(name: string): void;
  resumeHeartbeat(name: string): void;
  heartbeatStopped(name: string): boolean;
  stats(): HollowNodesStats;
  /** Stops everything this started (the clientset stays open: it is the caller's). */
  stop(): Promise<void>;
}

/**
 * Renewals in flight at most, for any number of nodes. Tried: N/20 (250 at 5,000 nodes, so renewals
 * would take the larger share of a busy server), but on a starved API server 300 connections'
 * TLS handshakes and a deeper queue made every request time out; 64 own slots it is.
 */
export const hollowHeartbeatConcurrency = 64;

/** Sockets a hollow-nodes client needs: heartbeats, registrations and pod workers in flight together. */
export function hollowClientSockets(opts: { heartbeatConcurrency?: number; concurrency?: number; workers?: number } = {}): number {
  return (opts.heartbeatConcurrency ?? hollowHeartbeatConcurrency) + (opts.concurrency ?? 64) + (opts.workers ?? 16) + 8;
}

/** Registers the nodes (and their Leases), starts heartbeats and pod workers; resolves once all are registered. */
export async function startHollowNodes(opts: HollowNodesOptions): Promise<HollowNodes> {
  const clock = opts.clock ?? realClock;
  const log = opts.log ?? logger('hollow-nodes');
  const prefix = opts.namePrefix ?? 'hollow-';
  const shape: NodeShape = { cpu: opts.cpu ?? '4', memory: opts.memory ?? '16Gi', pods: opts.pods ?? 110, ephemeralStorage: opts.ephemeralStorage ?? '100Gi' };
  const interval = opts.heartbeatIntervalMs ?? 10_000;
  if (opts.count > maxHollowNodes) throw new Error(`at most ${maxHollowNodes} hollow nodes have addresses of their own in 127.1.0.0/16, not ${opts.count}`);
  const names = Array.from({ length: opts.count }, (_, i) => `${prefix}${i}`);
  const addresses = names.map((_, i) => nodeInternalIP(i));
  const index = new Map(names.map((n, i) => [n, i]));
  const owns = (n: string) => index.has(n);
  const limiter = new Limiter(opts.heartbeatConcurrency ?? hollowHeartbeatConcurrency);
  const asNode = cachedPerNode(opts.nodeClients ?? ((n) => impersonatingNode(opts.clients, n)));
  const nodesAPI = (n: string) => asNode(n).resource(resources.nodes);

  const informers = new SharedInformerFactory(opts.clients, { clock, log, transform: stripManagedFields });
  const nodeInformer = informers.informerFor(resources.nodes, { labelSelector: 'node.kubernetes.io/instance-type=hollow' });
  const podInformer = informers.informerFor(resources.pods, { fieldSelector: 'spec.nodeName!=' });
  const kubelet = await startHollowKubeletServer({
    names, addresses, port: opts.kubeletPort, ca: opts.ca, log,
    pod: (namespace, name) => podInformer.lister.get(namespace, name),
    podsOn: podsByNode(() => podInformer.lister.list()),
  });
  const endpoint = (name: string): KubeletEndpoint => ({ address: addresses[index.get(name)!], port: kubelet.port });
  const status = (name: string, now: number, previous?: NodeStatus) => nodeStatus(name, endpoint(name), shape, now, previous);

  const heartbeats = new Heartbeats({
    nodes: nodesAPI, leases: (n) => asNode(n).resource(resources.leases), clock, log, limiter,
    intervalMs: interval, leaseDurationSeconds: opts.leaseDurationSeconds ?? 40,
    statusReportIntervalMs: opts.statusReportIntervalMs ?? 5 * 60_000,
    cachedNode: (name) => nodeInformer.lister.get(undefined, name),
    status,
  });
  const pods = new HollowPods({
    pods: (n) => asNode(n).resource(resources.pods), podInformer, nodeInformer, clock, log, owns,
    secrets: (n) => asNode(n).resource(resources.secrets), configMaps: (n) => asNode(n).resource(resources.configmaps),
    claims: (n) => asNode(n).resource(resources.persistentvolumeclaims),
    recorder: (n) => new EventRecorder(asNode(n).resource(resources.events), { component: 'kubelet', host: n }, clock, log),
    heartbeatStopped: (n) => heartbeats.isStopped(n),
    hostIP: (n) => addresses[index.get(n)!],
    terminationDelayMs: opts.terminationDelayMs ?? 1000,
    mountRetryMs: opts.mountRetryMs ?? 1000,
  });

  const register = async (name: string): Promise<Node> => {
    const now = clock.now();
    try {
      return await nodesAPI(name).create(undefined, nodeObject(name, endpoint(name), shape, now));
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      // Re-registration: the Node stays (with its pod CIDR); the kubelet reports fresh status.
      const cur = await nodesAPI(name).get(undefined, name);
      return nodesAPI(name).patch(undefined, name, 'merge', { status: status(name, now, cur.status) }, 'status');
    }
  };
  for (const n of opts.stopHeartbeat ?? []) heartbeats.stopHeartbeat(n);
  informers.start();
  await informers.waitForCacheSync();
  // Renewals run while later nodes are still registering (thousands take a while).
  heartbeats.start();
  // Each node gets its Lease right after its Node (a node registered long before its first
  // Lease would look silent); later renewals are spread evenly over the interval.
  // Registration has its own limiter: queued behind thousands of registrations, the first
  // nodes' renewals would come too late.
  const registration = new Limiter(opts.concurrency ?? 64);
  // A node is registered only while the renewals keep up: when the API server is slower than
  // the two together, registering more would starve the renewals of nodes already there,
  // and they would go NotReady (a busy server serves requests in arrival order).
  // The wait is bounded (5 s) so registration always ends, if with nodes flapping.
  const renewalsKeepUp = async () => {
    for (let waited = 0; limiter.queued > 0 && waited < 5000; waited += 100) await new Promise<void>((r) => clock.setTimeout(() => r(), 100));
  };
  // As the kubelet, registration is retried while the server is slow or overloaded.
  const registerRetrying = async (name: string): Promise<Node> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await register(name);
      } catch (e) {
        const transient = !(e instanceof APIError) || e.code === 429 || e.code >= 500;
        if (!transient || attempt >= 10) throw e;
        log.warn('registration failed; retrying', { node: name, attempt, error: (e as Error).message });
        await new Promise<void>((r) => clock.setTimeout(() => r(), Math.min(5000, 250 * 2 ** attempt)));
      }
    }
  };
  try {
    await Promise.all(names.map((name, i) => registration.run(async () => {
      await renewalsKeepUp();
      const node = await registerRetrying(name);
      await heartbeats.beat(name, node);
      heartbeats.add(node, interval + Math.floor((i * interval) / names.length));
    })));
  } catch (e) {
    await heartbeats.stop();
    await kubelet.stop();
    await informers.stop();
    throw e;
  }
  pods.run(opts.workers ?? 16);
  log.info('hollow nodes running', { nodes: names.length, first: names[0], last: names[names.length - 1], kubeletPort: kubelet.port });

  return {
    names,
    kubeletPort: kubelet.port,
    stopHeartbeat: (name) => {
      if (!owns(name)) throw new Error(`no hollow node named "${name}"`);
      heartbeats.stopHeartbeat(name);
      log.info('heartbeat stopped', { node: name });
    },
    resumeHeartbeat: (name) => {
      if (!owns(name)) throw new Error(`no hollow node named "${name}"`);
      heartbeats.resumeHeartbeat(name);
      pods.enqueueNode(name);
      log.info('heartbeat resumed', { node: name });
    },
    heartbeatStopped: (name) => heartbeats.isStopped(name),
    stats: () => ({ nodes: names.length, leaseRenewals: heartbeats.renewals, heartbeatFailures: heartbeats.failures, podsStarted: pods.started, podsDeleted: pods.deleted }),
    async stop() {
      await heartbeats.stop();
      await pods.stop();
      await kubelet.stop();
      await informers.stop();
    },
  };
}

/** Pods by node, rebuilt from the lister at most once a second (a scrape of every node must
 *  not walk all pods once per node). */
function podsByNode(list: () => Pod[]): (node: string) => Pod[] {
  let index = new Map<string, Pod[]>(), built = -Infinity;
  return (node) => {
    if (Date.now() - built > 1000) {
      index = new Map();
      for (const p of list()) {
        const n = p.spec?.nodeName;
        if (!n) continue;
        const on = index.get(n);
        if (on) on.push(p);
        else index.set(n, [p]);
      }
      built = Date.now();
    }
    return index.get(node) ?? [];
  };
}
