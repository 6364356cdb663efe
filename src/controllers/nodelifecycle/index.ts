// Node lifecycle: a node whose kubelet stops renewing its Lease (and stops posting status)
// for longer than the grace period turns Ready=Unknown; nodes that are not Ready get the
// not-ready/unreachable taints, which go once they are Ready again; pods on a node with
// NoExecute taints are evicted when their tolerations run out. See DESIGN.md.
//
// One queue holds two kinds of keys: a node name (no "/") and a pod's "namespace/name".
import { rfc3339 } from '../../api/time.js';
import { isNotFound, resources, splitKey, type EventRecorder, type SharedInformer } from '../../client/index.js';
import { QueueController, type Controller, type ControllerContext, type ReconcileResult } from '../framework.js';
import { heartbeats, latestHeartbeat, statusUnknown } from './health.js';
import { evictionTime } from './eviction.js';
import { condition, noExecuteTaints, readyStatus, reconcileTaints, type Taint } from './taints.js';
import type { Lease, Node, Pod } from '../../api/kinds.js';
import { nullTime } from '../../api/kinds.js';
import type { PodCondition } from 'kubernetes-types/core/v1.js';

export const nodeLeaseNamespace = 'kube-node-lease';

interface NodeHealth {
  /** When the controller last saw a sign of life (its own clock, so kubelet clock skew does not matter). */
  probeAt: number;
  renew?: string;
  heartbeat?: string;
  /** The renewTime last read from the API server itself (renewedSinceSeen), ahead of the informer's. */
  liveRenew?: string;
  /** The Ready status last seen, for NodeNotReady/NodeReady events on transitions. */
  ready?: string;
}

const taintID = (node: string, t: Taint) => `${node}|${t.key}|${t.effect}`;

export class NodeLifecycleController extends QueueController {
  private readonly nodes: SharedInformer<Node>;
  private readonly pods: SharedInformer<Pod>;
  private readonly leases: SharedInformer<Lease>;
  private readonly recorder: EventRecorder;
  private readonly health = new Map<string, NodeHealth>();
  /** First sight of a NoExecute taint that carries no timeAdded. */
  private readonly taintSeen = new Map<string, number>();
  /** Pods waiting for their tolerations to run out (for the cancel event). */
  private readonly scheduled = new Set<string>();

  constructor(ctx: ControllerContext) {
    super('nodelifecycle', ctx);
    this.recorder = ctx.recorder('node-controller');
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.pods = ctx.informers.informerFor(resources.pods);
    this.leases = ctx.informers.informerFor(resources.leases);
    this.pods.addIndexer('nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    this.nodes.addEventHandler({
      onAdd: (n) => this.enqueue(n),
      onUpdate: (o, n) => {
        this.enqueue(n);
        if (readyStatus(o) !== readyStatus(n) || JSON.stringify(noExecuteTaints(o)) !== JSON.stringify(noExecuteTaints(n))) this.enqueuePodsOn(n.metadata.name as string);
      },
      onDelete: (n) => this.enqueue(n),
    });
    const onLease = (l: Lease) => { if (l.metadata.namespace === nodeLeaseNamespace) this.enqueue(l.metadata.name as string); };
    this.leases.addEventHandler({ onAdd: onLease, onUpdate: (_o, n) => onLease(n), onDelete: onLease });
    const onPod = (p: Pod) => { if (p.spec?.nodeName) this.enqueue(p); };
    this.pods.addEventHandler({ onAdd: onPod, onUpdate: (_o, n) => onPod(n), onDelete: (p) => this.enqueue(p) });
  }

  private enqueuePodsOn(node: string): void {
    for (const p of this.pods.lister.byIndex('nodeName', node)) this.enqueue(p);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (!this.nodes.hasSynced() || !this.pods.hasSynced() || !this.leases.hasSynced()) return { requeueAfterMs: 100 };
    return key.includes('/') ? this.reconcilePod(key) : this.reconcileNode(key);
  }

  // ---- nodes -------------------------------------------------------------------------

  private observe(name: string, node: Node, now: number): NodeHealth {
    const seen = heartbeats(node, this.leases.lister.get(nodeLeaseNamespace, name));
    let h = this.health.get(name);
    if (!h) {
      // First sight (also after a restart): trust the timestamps, never beyond now.
      h = { probeAt: Math.min(now, latestHeartbeat(seen) ?? now), ...seen };
      this.health.set(name, h);
    } else if (seen.renew !== h.renew || seen.heartbeat !== h.heartbeat) {
      // The informer catching up with a renewal already read from the API is no news.
      if (seen.renew !== h.liveRenew || seen.heartbeat !== h.heartbeat) h.probeAt = now;
      h.renew = seen.renew;
      h.heartbeat = seen.heartbeat;
    }
    return h;
  }

  private async reconcileNode(name: string): Promise<ReconcileResult | void> {
    let node = this.nodes.lister.get(undefined, name);
    if (!node) {
      this.health.delete(name);
      for (const k of this.taintSeen.keys()) if (k.startsWith(`${name}|`)) this.taintSeen.delete(k);
      return;
    }
    const now = this.ctx.clock.now();
    const grace = this.ctx.config.nodeMonitorGracePeriodMs;
    const h = this.observe(name, node, now);
    let silent = now - h.probeAt >= grace;
    const nodes = this.ctx.clients.resource(resources.nodes);
    if (silent && readyStatus(node) !== 'Unknown' && await this.renewedSinceSeen(name, h, now)) silent = false;
    if (silent && readyStatus(node) !== 'Unknown') {
      node = await nodes.updateStatus({ ...structuredClone(node), status: statusUnknown(node, now) });
      this.log.info('node stopped posting status', { node: name, silentForMs: now - h.probeAt });
    }
    const ready = readyStatus(node);
    if (h.ready === 'True' && ready !== 'True') this.recorder.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
    if (h.ready !== undefined && h.ready !== 'True' && ready === 'True') this.recorder.event(node, 'Normal', 'NodeReady', `Node ${name} status is now: NodeReady`);
    h.ready = ready;

    const taints = reconcileTaints(node, now);
    if (taints) {
      const next = structuredClone(node);
      next.spec = { ...next.spec, taints };
      if (!taints.length) delete next.spec.taints;
      await nodes.update(next);
      this.log.info('node taints updated', { node: name, ready, taints: taints.map((t) => `${t.key}:${t.effect}`) });
    }
    if (!silent) return { requeueAfterMs: h.probeAt + grace - now };
  }

  /**
   * Before a node is marked Unknown, its Lease is read from the API server rather than from
   * the informer: with thousands of nodes a busy controller-manager's watch can lag by more
   * than the grace period, and a lagging view must not look like a silent kubelet. A renewal
   * the informer has not delivered yet counts as a sign of life now.
   */
  private async renewedSinceSeen(name: string, h: NodeHealth, now: number): Promise<boolean> {
    let live: Lease;
    try {
      live = await this.ctx.clients.resource(resources.leases).get(nodeLeaseNamespace, name);
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
    const renew = live.spec?.renewTime;
    if (!renew || renew === h.renew || renew === h.liveRenew) return false;
    this.log.info('lease renewed past what the informer shows', { node: name, renewTime: renew, informer: h.renew });
    h.probeAt = now;
    h.liveRenew = renew;
    return true;
  }

  // ---- pods --------------------------------------------------------------------------

  private taintStart(node: string, t: Taint): number {
    const added = t.timeAdded ? Date.parse(t.timeAdded) : NaN;
    if (!Number.isNaN(added)) return added;
    const id = taintID(node, t);
    let seen = this.taintSeen.get(id);
    if (seen === undefined) this.taintSeen.set(id, (seen = this.ctx.clock.now()));
    return seen;
  }

  private async reconcilePod(key: string): Promise<ReconcileResult | void> {
    const pod = this.pods.lister.byKey(key);
    const nodeName: string | undefined = pod?.spec?.nodeName;
    const node = nodeName ? this.nodes.lister.get(undefined, nodeName) : undefined;
    if (!pod || !node) {
      this.scheduled.delete(key);
      return;
    }
    const { namespace, name } = splitKey(key);
    const now = this.ctx.clock.now();
    const ready = readyStatus(node);

    // A pod on a node that is not Ready is not ready either: its kubelet cannot say otherwise.
    if (ready !== undefined && ready !== 'True' && condition(pod, 'Ready')?.status === 'True') {
      await this.setPodCondition(pod, { type: 'Ready', status: 'False' }, now);
      this.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
      return; // the write brings the pod back through the queue
    }

    if (pod.metadata.deletionTimestamp) {
      this.scheduled.delete(key);
      if (ready !== 'Unknown') return;
      // An unreachable kubelet will never finish the deletion: force it once the grace period is over.
      const due = Date.parse(pod.metadata.deletionTimestamp);
      if (now < due) return { requeueAfterMs: due - now };
      await this.deletePod(namespace!, name, pod, 0);
      this.log.info('forced deletion of a pod on an unreachable node', { pod: key, node: nodeName });
      return;
    }

    const taints = noExecuteTaints(node);
    const at = evictionTime(pod, taints, this.ctx.config.podEvictionTimeoutMs, (t) => this.taintStart(nodeName!, t));
    if (at === null) {
      if (this.scheduled.delete(key)) this.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
      return;
    }
    if (now < at) {
      this.scheduled.add(key);
      return { requeueAfterMs: at - now };
    }
    this.scheduled.delete(key);
    this.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    if (condition(pod, 'DisruptionTarget')?.status !== 'True') {
      await this.setPodCondition(pod, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' }, now);
    }
    await this.deletePod(namespace!, name, pod);
    this.log.info('pod evicted', { pod: key, node: nodeName, taints: taints.map((t) => `${t.key}:${t.effect}`) });
  }

  private async setPodCondition(pod: Pod, c: PodCondition, now: number): Promise<void> {
    const next = structuredClone(pod);
    const conditions = (next.status ??= {}).conditions ??= [];
    const old = conditions.find((x) => x.type === c.type);
    const entry = { ...c, lastProbeTime: nullTime, lastTransitionTime: rfc3339(new Date(now)) };
    if (old) Object.assign(old, entry);
    else conditions.push(entry);
    try {
      await this.ctx.clients.resource(resources.pods).updateStatus(next);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async deletePod(namespace: string, name: string, pod: Pod, gracePeriodSeconds?: number): Promise<void> {
    try {
      await this.ctx.clients.resource(resources.pods).delete(namespace, name, { gracePeriodSeconds, preconditions: { uid: pod.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new NodeLifecycleController(ctx);
}
