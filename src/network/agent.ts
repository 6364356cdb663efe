// The node network agent: owns the node's pod IPAM and does the netlink work for the thin
// CNI plugin; learns the node's block from its Node object.
//
//   Node informer (all Nodes) ──► syncNode(): own spec.podCIDR ──► conflist written once known
//   cni.sock ──► cni/server ──► cni/handler (ADD/DEL/CHECK) ──► IPAM (disk) + Netlink (addon)
//   every gcIntervalMs ──► gc: records of sandboxes the runtime no longer has
//
// Routes to other nodes hang off the same informer (`nodes`) and apply through the same
// `netlink` in `hostNetns`. Outgoing NAT (nat.ts) is one nftables table set up at start;
// NetworkPolicy (policy/) is another, kept in step with Pods, Namespaces and policies.
import { resources, SharedInformerFactory, type ClientsetAPI, type SharedInformer } from '../client/index.js';
import type { Logger } from '../log/index.js';
import type { Netlink } from '../netlink/index.js';
import { formatCidr, parseCidr, type Cidr } from './cidr.js';
import { serveCNI, type CNIServer } from './cni/server.js';
import { collectGarbage } from './gc.js';
import { installPlugin, writeConflist } from './install.js';
import { IPAM } from './ipam.js';
import { nodeNetworkOps } from './podnet.js';
import { RoutesManager, type EncapsulationMode } from './routes/index.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from '../api/kinds.js';
import type { NftDriver } from '../nft/index.js';
import { natTable, syncNatOutgoing } from './nat.js';
import { PolicyController } from './policy/controller.js';
import { PolicyEnforcer, policyTable } from './policy/enforcer.js';
import type { Registry } from 'prom-client';

export interface NetworkAgentOptions {
  netlink: Netlink;
  /** The node's network namespace (null: the agent's own). */
  hostNetns: string | null;
  /** IPAM records live under <stateDir>/ipam. */
  stateDir: string;
  socket: string;
  /** Watch Nodes through the API; the own block comes from nodeName's spec.podCIDR. */
  clients?: ClientsetAPI;
  nodeName?: string;
  /** A fixed block instead of the Node's (standalone use). */
  podCIDR?: string;
  /** Where to install the plugin binary and the conflist; skipped when absent. */
  cniBinDir?: string;
  cniConfDir?: string;
  /** The thin plugin to install (default: build/cni/capstan, compiled if missing). */
  pluginBinary?: string;
  mtu: number;
  /** Sandbox IDs the runtime knows, for the GC pass; no GC without it. */
  listSandboxIDs?: () => Promise<string[]>;
  gcIntervalMs?: number;
  gcGraceMs?: number;
  /** Routes to other nodes' blocks (with clients + nodeName): the default mode (CrossSubnet). */
  encapsulation?: EncapsulationMode;
  /** The cluster's pod network: made unreachable next to the own block (with clients + nodeName). */
  clusterCIDR?: string;
  /** Calico's natOutgoing: masquerade pods' traffic to outside the pool (--cluster-cidr, else
   *  the fixed --pod-cidr). Needs `nft`; without `nft` the agent keeps no nftables state. */
  natOutgoing?: boolean;
  nft?: NftDriver;
  /** Enforce NetworkPolicy for this node's pods in `ip capstan-policy` (with clients, nodeName
   *  and nft; default true). False removes a table an earlier run left. */
  networkPolicy?: boolean;
  /** How often the policy table is checked against the kernel (default 60 s). */
  policyResyncMs?: number;
  /** How often the policy counters are published on the own Node when they moved (default 5 s; 0 never). */
  policyCountsPublishMs?: number;
  /** Where the policy counters and sync durations are registered (/metrics). */
  registry?: Registry;
  /** How long start() waits for the Node cache before serving anyway (default 5 s). */
  syncTimeoutMs?: number;
  log: Logger;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export class NetworkAgent {
  readonly ipam: IPAM;
  readonly netlink: Netlink;
  readonly hostNetns: string | null;
  readonly informers?: SharedInformerFactory;
  /** Every Node of the cluster (routes to other nodes' blocks are derived from it). */
  readonly nodes?: SharedInformer<Node>;
  readonly routes?: RoutesManager;
  /** NetworkPolicy enforcement (absent: off, or no API server or nftables). */
  readonly policy?: PolicyController;
  private block?: Cidr;
  private server?: CNIServer;
  private conflistWritten = false;
  private gcTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly o: NetworkAgentOptions) {
    this.netlink = o.netlink;
    this.hostNetns = o.hostNetns;
    this.ipam = new IPAM(join(o.stateDir, 'ipam'));
    if (o.podCIDR) {
      const block = parseCidr(o.podCIDR);
      if (!block) throw new Error(`invalid pod CIDR ${o.podCIDR}`);
      this.block = block;
    } else {
      // The last block the Node had: a restarted agent serves at once, even while the API
      // server is unreachable; the Node's current value replaces it once the cache syncs.
      this.block = this.readCachedBlock();
    }
    if (o.clients && o.nodeName) {
      this.informers = new SharedInformerFactory(o.clients, { log: o.log, resyncMs: 0 });
      this.nodes = this.informers.informerFor(resources.nodes);
      const changed = (n: Node) => { if (n.metadata.name === o.nodeName) this.syncNode(); };
      this.nodes.addEventHandler({ onAdd: changed, onUpdate: (_, n) => changed(n), onDelete: changed });
      const clusterCIDR = o.clusterCIDR !== undefined ? parseCidr(o.clusterCIDR) : undefined;
      if (o.clusterCIDR !== undefined && !clusterCIDR) throw new Error(`invalid cluster CIDR ${o.clusterCIDR}`);
      if (o.nft && o.networkPolicy !== false) {
        const enforcer = new PolicyEnforcer(policyTable(o.nft, o.hostNetns), o.log, o.nodeName);
        this.policy = new PolicyController({ informers: this.informers, enforcer, log: o.log, registry: o.registry, resyncMs: o.policyResyncMs,
          publish: { clients: o.clients, nodeName: o.nodeName, periodMs: o.policyCountsPublishMs ?? 5000 } });
      }
      this.routes = new RoutesManager({
        netlink: o.netlink, netns: o.hostNetns, nodeName: o.nodeName, nodes: this.nodes, clients: o.clients, mode: o.encapsulation, clusterCIDR, log: o.log,
      });
    }
  }

  /** The node's block, once known. */
  podCIDR(): Cidr | undefined {
    return this.block;
  }

  /** Serving, and the conflist is in place (what containerd's NetworkReady waits for). */
  ready(): boolean {
    return !!this.server && (this.conflistWritten || !this.o.cniConfDir) && !!this.block;
  }

  async start(): Promise<void> {
    await this.netlink.apply(this.hostNetns, nodeNetworkOps());
    await this.syncNat();
    if (this.o.cniBinDir) {
      const r = await installPlugin(this.o.cniBinDir, this.o.socket, this.o.pluginBinary);
      this.o.log.info('installed the CNI plugin', { path: r.plugin, loopback: r.loopback });
    }
    this.server = await serveCNI({
      netlink: this.netlink, ipam: this.ipam, hostNetns: this.hostNetns, mtu: this.o.mtu, log: this.o.log,
      podCIDR: () => this.block,
    }, this.o.socket);
    this.o.log.info('serving CNI requests', { socket: this.o.socket, allocations: this.ipam.list().length });
    this.informers?.start();
    if (this.informers) {
      const synced = await Promise.race([this.informers.waitForCacheSync().then(() => true), sleep(this.o.syncTimeoutMs ?? 5000).then(() => false)]);
      if (!synced) this.o.log.warn('Node cache not synced yet; serving with the cached pod CIDR', { podCIDR: this.block && formatCidr(this.block) });
    }
    this.syncNode();
    this.routes?.start();
    if (this.policy) this.policy.start().catch((e: unknown) => this.o.log.error('network policy did not start', { error: (e as Error).message }));
    else if (this.o.nft && this.o.networkPolicy === false) await policyTable(this.o.nft, this.hostNetns).remove();
    if (this.o.listSandboxIDs) this.scheduleGC();
  }

  /** The pool does not change while the agent runs: set once per start, adopted when equal.
   *  With natOutgoing off, a table an earlier run left is removed. */
  private async syncNat(): Promise<void> {
    if (!this.o.nft) return;
    const raw = this.o.clusterCIDR ?? this.o.podCIDR;
    const pool = raw !== undefined ? parseCidr(raw) : undefined;
    if (this.o.natOutgoing && !pool) {
      this.o.log.warn('outgoing NAT needs --cluster-cidr (or --pod-cidr); pods keep their address to outside the cluster');
    }
    await syncNatOutgoing(natTable(this.o.nft, this.hostNetns), this.o.natOutgoing ? pool : undefined, this.o.log);
  }

  /** Level-based: re-reads the own Node from the cache, whatever event woke it. */
  private syncNode(): void {
    if (this.o.nodeName && this.nodes) {
      const node = this.nodes.lister.get(undefined, this.o.nodeName);
      const raw = node?.spec?.podCIDR;
      const block = raw ? parseCidr(raw) : undefined;
      if (raw && !block) this.o.log.warn('node has an invalid podCIDR', { node: this.o.nodeName, podCIDR: raw });
      if (!this.o.podCIDR && block && (!this.block || formatCidr(block) !== formatCidr(this.block))) {
        this.o.log.info('pod CIDR of this node', { node: this.o.nodeName, podCIDR: formatCidr(block) });
        this.block = block;
        this.writeCachedBlock(block);
      }
    }
    // The conflist is what tells containerd the network is ready: only once ADD can succeed.
    if (this.block && !this.conflistWritten && this.o.cniConfDir && this.server) {
      const path = writeConflist(this.o.cniConfDir, { socket: this.o.socket, mtu: this.o.mtu });
      this.conflistWritten = true;
      this.o.log.info('wrote the CNI network config', { path });
    }
  }

  private readCachedBlock(): Cidr | undefined {
    try {
      return parseCidr(readFileSync(join(this.o.stateDir, 'podcidr'), 'utf8'));
    } catch { // first start on this node: no block cached yet
      return undefined;
    }
  }

  private writeCachedBlock(block: Cidr): void {
    writeFileSync(join(this.o.stateDir, 'podcidr'), `${formatCidr(block)}\n`);
  }

  private scheduleGC(): void {
    if (this.stopped) return;
    this.gcTimer = setTimeout(() => {
      void this.gc().finally(() => this.scheduleGC());
    }, this.o.gcIntervalMs ?? 60_000);
    this.gcTimer.unref();
  }

  /** One GC pass (also callable directly). */
  async gc(nowMs = Date.now()) {
    if (!this.o.listSandboxIDs) return [];
    try {
      return await collectGarbage(this, this.o.listSandboxIDs, nowMs, this.o.gcGraceMs ?? 120_000);
    } catch (e) {
      this.o.log.warn('address GC failed', { error: (e as Error).message });
      return [];
    }
  }

  get log(): Logger {
    return this.o.log;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.gcTimer) clearTimeout(this.gcTimer);
    await this.server?.close();
    await this.routes?.stop();
    await this.policy?.stop();
    await this.informers?.stop();
  }
}
