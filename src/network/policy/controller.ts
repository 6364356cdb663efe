// The agent's side of NetworkPolicy: informers over Pods, Namespaces and NetworkPolicies
// (all of the cluster: peers live anywhere) whose events only ask for a sync; one coalescing
// runner computes the model from the listers and lets the enforcer commit the difference;
// a timer resyncs against the kernel. Counters and the explanation of a flow come from here.
import { Counter, Histogram, type Registry } from 'prom-client';
import { resources, type ClientsetAPI, type SharedInformer, type SharedInformerFactory } from '../../client/index.js';
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy, Namespace, NetworkPolicy, Node, Pod } from '../../api/kinds.js';
import type { Logger } from '../../log/index.js';
import { metricOn } from '../../log/metrics.js';
import { SyncRunner, backoffDelay } from '../../util/index.js';
import { COLLECT_AFTER_MS, PolicyEnforcer } from './enforcer.js';
import { CountsPublisher } from './published-counts.js';
import type { Explanation } from './explain.js';
import type { Protocol } from './model.js';

export interface PolicyControllerOptions {
  informers: SharedInformerFactory;
  enforcer: PolicyEnforcer;
  log: Logger;
  registry?: Registry;
  /** How often the table is compared with the kernel's (when the generation moved). Default 60 s. */
  resyncMs?: number;
  /** Publish the counters on this node's Node (`capstan.io/network-policy-packets`) every `periodMs` they moved; 0 never. */
  publish?: { clients: ClientsetAPI; nodeName: string; periodMs: number };
}

export class PolicyController {
  readonly pods: SharedInformer<Pod>;
  readonly namespaces: SharedInformer<Namespace>;
  readonly policies: SharedInformer<NetworkPolicy>;
  readonly nodes: SharedInformer<Node>;
  readonly adminPolicies: SharedInformer<AdminNetworkPolicy>;
  readonly baselinePolicies: SharedInformer<BaselineAdminNetworkPolicy>;
  /** The admin tiers' informers have listed once (an API server without them: never; NetworkPolicy does not wait). */
  private adminSynced = false;
  private readonly runner: SyncRunner;
  private resyncTimer?: NodeJS.Timeout;
  private collectTimer?: NodeJS.Timeout;
  private failures = 0;
  private synced = false;
  private lastResync = 0;
  private readonly duration?: Histogram<'mode'>;
  private readonly publisher?: CountsPublisher;

  constructor(private readonly o: PolicyControllerOptions) {
    this.pods = o.informers.informerFor(resources.pods);
    this.namespaces = o.informers.informerFor(resources.namespaces);
    this.policies = o.informers.informerFor(resources.networkpolicies);
    this.nodes = o.informers.informerFor(resources.nodes);
    this.adminPolicies = o.informers.informerFor(resources.adminnetworkpolicies);
    this.baselinePolicies = o.informers.informerFor(resources.baselineadminnetworkpolicies);
    this.runner = new SyncRunner(() => this.pass(), { onError: (e) => o.log.error('network policy sync failed', { error: (e as Error).message }) });
    const changed = () => { if (this.synced) this.runner.request(); };
    const handler = { onAdd: changed, onUpdate: changed, onDelete: changed };
    this.pods.addEventHandler(handler, 'network-policy');
    this.namespaces.addEventHandler(handler, 'network-policy');
    this.policies.addEventHandler(handler, 'network-policy');
    this.adminPolicies.addEventHandler(handler, 'network-policy');
    this.baselinePolicies.addEventHandler(handler, 'network-policy');
    // Nodes matter only to admin rules with node peers: a change of their addresses or labels.
    const nodeChanged = (a: Node, b?: Node) => { if (this.synced && (!b || JSON.stringify([a.metadata.labels, a.status?.addresses]) !== JSON.stringify([b.metadata.labels, b.status?.addresses]))) this.runner.request(); };
    this.nodes.addEventHandler({ onAdd: (n) => nodeChanged(n), onUpdate: (a, b) => nodeChanged(a, b), onDelete: (n) => nodeChanged(n) }, 'network-policy');
    if (o.publish) this.publisher = new CountsPublisher({ ...o.publish, counts: () => o.enforcer.counts(), log: o.log });
    if (o.registry) {
      this.duration = metricOn(o.registry, 'capstan_network_policy_sync_duration_seconds', () => new Histogram({
        name: 'capstan_network_policy_sync_duration_seconds', help: 'Time from a sync request\'s pass start to its committed transaction, by mode (partial, full, unchanged).',
        labelNames: ['mode'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [o.registry!],
      }));
      this.registerCounters(o.registry);
    }
  }

  /** Call after the informer factory started: the first sync waits for complete caches. */
  async start(): Promise<void> {
    await Promise.all([this.pods.waitForSync(), this.namespaces.waitForSync(), this.policies.waitForSync()]);
    // The admin tiers join when their informers have listed: an API server that does not serve
    // policy.networking.k8s.io must not hold NetworkPolicy back. Until then, no admin rules.
    const adminSync = Promise.all([this.nodes.waitForSync(), this.adminPolicies.waitForSync(), this.baselinePolicies.waitForSync()]).then(() => { this.adminSynced = true; this.runner.request(); });
    await Promise.race([adminSync, new Promise((r) => setTimeout(r, 5_000).unref())]);
    if (!this.adminSynced) this.o.log.warn('AdminNetworkPolicy informers not synced after 5s; enforcing NetworkPolicy without them until they are');
    this.synced = true;
    this.runner.request();
    this.publisher?.start();
    this.resyncTimer = setInterval(() => this.runner.request(), this.o.resyncMs ?? 60_000);
    this.resyncTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.publisher?.stop();
    if (this.collectTimer) clearTimeout(this.collectTimer);
    await this.runner.stop();
  }

  private async pass(): Promise<void> {
    const started = performance.now();
    try {
      const admin = this.adminSynced ? { nodes: this.nodes.lister.list(), admin: this.adminPolicies.lister.list(), baseline: this.baselinePolicies.lister.list() } : {};
      const r = await this.o.enforcer.sync({ pods: this.pods.lister.list(), namespaces: this.namespaces.lister.list(), policies: this.policies.lister.list(), ...admin });
      if (r.mode === 'unchanged' && Date.now() - this.lastResync >= (this.o.resyncMs ?? 60_000)) {
        this.lastResync = Date.now();
        await this.o.enforcer.resync();
      }
      this.duration?.observe({ mode: r.mode }, (performance.now() - started) / 1000);
      if (r.mode !== 'unchanged') this.o.log.info('network policy synced', { mode: r.mode, ops: r.ops, ms: Math.round(performance.now() - started) });
      this.failures = 0;
      // Old generations' chains go in a later pass of their own, off the change's path.
      if (r.mode === 'unchanged') await this.o.enforcer.collect();
      if (this.o.enforcer.hasGarbage() && !this.collectTimer) {
        this.collectTimer = setTimeout(() => { this.collectTimer = undefined; this.runner.request(); }, COLLECT_AFTER_MS);
        this.collectTimer.unref();
      }
    } catch (e) {
      this.failures++;
      const delay = backoffDelay({ initialMs: 500, maxMs: 30_000 }, this.failures - 1);
      this.o.log.warn('network policy sync failed; retrying', { error: (e as Error).message, retryInMs: delay });
      this.runner.retry(delay);
    }
  }

  /** Resolves `ns/name` to the pod's address; an address passes through. */
  address(ref: string): string | undefined {
    if (!ref.includes('/')) return ref;
    const [ns, name] = ref.split('/') as [string, string];
    return this.pods.lister.get(ns, name)?.status?.podIP;
  }

  explain(src: string, dst: string, port: number, protocol: Protocol): Explanation | undefined {
    return this.o.enforcer.explain(src, dst, port, protocol);
  }

  private registerCounters(registry: Registry): void {
    const enforcer = this.o.enforcer;
    const split = (key: string) => { const i = key.indexOf('/'); return { namespace: key.slice(0, i), policy: key.slice(i + 1) }; };
    metricOn(registry, 'capstan_network_policy_allowed_packets_total', () => new Counter({
      name: 'capstan_network_policy_allowed_packets_total',
      help: 'Packets of new connections a policy\'s rules allowed on this node (restart when the pod\'s chain is rewritten).',
      labelNames: ['namespace', 'policy', 'direction'], registers: [registry],
      async collect() {
        this.reset();
        for (const c of (await enforcer.counts()).allowed) this.inc({ ...split(c.policy), direction: c.direction }, c.packets);
      },
    }));
    metricOn(registry, 'capstan_network_policy_denied_packets_total', () => new Counter({
      name: 'capstan_network_policy_denied_packets_total',
      help: 'Packets dropped at a pod no rule allowed them to, attributed to every policy isolating that pod.',
      labelNames: ['namespace', 'policy', 'direction'], registers: [registry],
      async collect() {
        this.reset();
        for (const d of (await enforcer.counts()).denied) for (const p of d.policies) this.inc({ ...split(p), direction: d.direction }, d.packets);
      },
    }));
    metricOn(registry, 'capstan_admin_network_policy_packets_total', () => new Counter({
      name: 'capstan_admin_network_policy_packets_total',
      help: 'Packets of new connections an AdminNetworkPolicy or the BaselineAdminNetworkPolicy decided (Allow, Deny) or passed on to NetworkPolicy (Pass) on this node, per policy.',
      labelNames: ['kind', 'policy', 'action', 'direction'], registers: [registry],
      async collect() {
        this.reset();
        for (const c of (await enforcer.counts()).admin) this.inc({ kind: c.kind, policy: c.policy, action: c.action, direction: c.direction }, c.packets);
      },
    }));
  }
}
