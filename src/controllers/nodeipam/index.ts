// Node IPAM: gives every Node a pod CIDR block (spec.podCIDR and spec.podCIDRs) cut from the
// cluster CIDR, and takes it back when the Node goes. See DESIGN.md.
import { isConflict, isNotFound, resources, type EventRecorder, type SharedInformer } from '../../client/index.js';
import { QueueController, type Controller, type ControllerContext, type ReconcileResult } from '../framework.js';
import { CIDRSet } from './cidrset.js';
import type { Node } from '../../api/kinds.js';

export { CIDRSet } from './cidrset.js';

function podCIDROf(node: Node): string | undefined {
  return node.spec?.podCIDR || node.spec?.podCIDRs?.[0] || undefined;
}

/**
 * Patches in flight at most, as upstream's range allocator (cidrUpdateWorkers): each worker
 * waits on one API write, so thousands of nodes registering at once would otherwise queue
 * behind the five workers other controllers get, at one API round trip per node.
 */
export const cidrUpdateWorkers = 30;

export class NodeIPAMController extends QueueController {
  private readonly nodes: SharedInformer<Node>;
  private readonly set: CIDRSet;
  private readonly recorder: EventRecorder;
  /** The block this controller counts as each node's, by node name. */
  private readonly held = new Map<string, string>();
  /** Nodes that found the range full; a release wakes them. */
  private readonly waiting = new Set<string>();
  private initialized = false;

  constructor(ctx: ControllerContext) {
    super('nodeipam', ctx);
    this.set = new CIDRSet(ctx.config.clusterCIDR, ctx.config.nodeCIDRMaskSize);
    this.recorder = ctx.recorder('cidrAllocator');
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.nodes.addEventHandler({
      onAdd: (n) => this.enqueue(n),
      onUpdate: (o, n) => { if (podCIDROf(o) !== podCIDROf(n) || !podCIDROf(n)) this.enqueue(n); },
      onDelete: (n) => this.enqueue(n),
    });
  }

  /**
   * Before the first allocation every block already on a Node is taken, so a restarted (or
   * newly elected) controller never hands out a block some Node still has.
   */
  private initialize(): void {
    for (const node of this.nodes.lister.list()) {
      const cidr = podCIDROf(node);
      if (!cidr) continue;
      const name = node.metadata.name as string;
      if (this.set.occupy(cidr, name)) this.held.set(name, cidr);
      else if (this.set.indexOf(cidr) !== undefined) this.log.warn('pod CIDR already held by another node', { node: name, podCIDR: cidr, holder: this.set.ownerOf(cidr) });
    }
    this.initialized = true;
    this.log.info('node IPAM ready', { clusterCIDR: this.set.clusterCIDR, nodeCIDRMaskSize: this.set.maskSize, used: this.set.used, blocks: this.set.blocks });
  }

  private release(name: string): void {
    const cidr = this.held.get(name);
    if (!cidr) return;
    this.set.release(cidr, name);
    this.held.delete(name);
    for (const w of this.waiting) this.enqueue(w);
  }

  override run(workers: number): Promise<void> {
    return super.run(Math.max(workers, cidrUpdateWorkers));
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    if (!this.nodes.hasSynced()) return { requeueAfterMs: 100 };
    if (!this.initialized) this.initialize();
    const node = this.nodes.lister.get(undefined, name);
    if (!node) {
      this.waiting.delete(name);
      this.release(name);
      return;
    }
    const current = podCIDROf(node);
    if (current) {
      this.waiting.delete(name);
      if (this.held.get(name) === current) return;
      this.release(name);
      if (this.set.occupy(current, name)) this.held.set(name, current);
      else if (this.set.indexOf(current) !== undefined) this.log.warn('pod CIDR already held by another node', { node: name, podCIDR: current, holder: this.set.ownerOf(current) });
      return;
    }
    let cidr = this.held.get(name);
    if (!cidr) {
      cidr = this.set.allocate(name);
      if (!cidr) {
        if (!this.waiting.has(name)) this.recorder.event(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
        this.waiting.add(name);
        this.log.warn('no pod CIDR left for node', { node: name, clusterCIDR: this.set.clusterCIDR });
        return;
      }
      this.held.set(name, cidr);
    }
    this.waiting.delete(name);
    try {
      // resourceVersion makes this a compare-and-swap: a node recreated or changed meanwhile is re-read.
      await this.ctx.clients.resource(resources.nodes).patch(undefined, name, 'merge', {
        metadata: { resourceVersion: node.metadata.resourceVersion },
        spec: { podCIDR: cidr, podCIDRs: [cidr] },
      });
      this.log.info('pod CIDR assigned', { node: name, podCIDR: cidr });
    } catch (e) {
      // The block stays held for this node: a timed-out write may still have landed.
      if (isNotFound(e)) return;
      if (isConflict(e)) throw e;
      this.recorder.event(node, 'Warning', 'CIDRAssignmentFailed', `Node ${name}: failed to assign pod CIDR ${cidr}: ${(e as Error).message}`);
      throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new NodeIPAMController(ctx);
}
