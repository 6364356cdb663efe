// The pod side of hollow kubelets: one informer on every bound pod, filtered to the nodes
// this process owns, and a work queue with a fixed pool of workers, so 10,000 pods turn
// Running with a bounded number of requests in flight. A bound pod becomes Running and
// Ready once its node has a pod CIDR and its Secret and ConfigMap volumes exist (until then
// it waits in ContainerCreating with FailedMount events, retried with backoff); a deleted
// pod is removed (gracePeriodSeconds=0) after a short simulated termination. Pods on a node
// whose heartbeat is stopped are left alone, as a dead kubelet would.
import { isNotFound, WorkQueue, type Clock, type EventRecorder, type ResourceAPI, type SharedInformer } from '../client/index.js';
import { objectKey } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { KeyedBackoff } from '../util/index.js';
import { PodIPPool } from './addresses.js';
import { missingVolume } from './volumes.js';
import { finishedStatus, isPendingShown, isRunningAndReady, pendingStatus, restartedStatus, runningStatus } from './pod-status.js';
import { exitPlan } from './exit-plan.js';
import type { Node, PersistentVolumeClaim, Pod } from '../api/kinds.js';

export interface HollowPodsDeps {
  /** The node's own clients: each node acts as itself (system:node:<name>). */
  pods(node: string): ResourceAPI;
  podInformer: SharedInformer<Pod>;
  nodeInformer: SharedInformer<Node>;
  clock: Clock;
  log: Logger;
  owns(node: string): boolean;
  heartbeatStopped(node: string): boolean;
  secrets(node: string): ResourceAPI;
  configMaps(node: string): ResourceAPI;
  /** The node's view of claims (bound before a pod using them starts); absent: not checked. */
  claims?(node: string): ResourceAPI<PersistentVolumeClaim>;
  /** An event recorder whose source is the given node's kubelet. */
  recorder(node: string): EventRecorder;
  hostIP(node: string): string;
  terminationDelayMs: number;
  /** First retry of a pod whose volumes are missing; doubles up to 8×. */
  mountRetryMs: number;
}

export class HollowPods {
  readonly queue: WorkQueue;
  private pools = new Map<string, PodIPPool>();
  private podNode = new Map<string, string>();
  private terminatingSince = new Map<string, number>();
  private readonly mountBackoff: KeyedBackoff;
  private recorders = new Map<string, EventRecorder>();
  private workers: Promise<void>[] = [];
  started = 0;
  deleted = 0;

  constructor(private d: HollowPodsDeps) {
    this.mountBackoff = new KeyedBackoff({ initialMs: d.mountRetryMs, maxMs: d.mountRetryMs * 8 });
    this.queue = new WorkQueue(d.clock);
    d.podInformer.addIndexer('nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    const onPod = (p: Pod) => { if (p.spec?.nodeName && d.owns(p.spec.nodeName)) this.queue.add(objectKey(p)); };
    d.podInformer.addEventHandler({ onAdd: onPod, onUpdate: (_o, n) => onPod(n), onDelete: onPod });
    d.nodeInformer.addEventHandler({
      onUpdate: (o, n) => { if (o.spec?.podCIDR !== n.spec?.podCIDR) this.enqueueNode(n.metadata.name as string); },
    });
  }

  enqueueNode(node: string): void {
    if (!this.d.owns(node)) return;
    for (const p of this.d.podInformer.lister.byIndex('nodeName', node)) this.queue.add(objectKey(p));
  }

  private pool(node: string): PodIPPool | undefined {
    const cidr: string | undefined = this.d.nodeInformer.lister.get(undefined, node)?.spec?.podCIDR;
    if (!cidr) return undefined;
    let pool = this.pools.get(node);
    if (!pool || pool.cidr !== cidr) this.pools.set(node, (pool = new PodIPPool(cidr)));
    return pool;
  }

  /** Starts the workers; informers must be synced. Addresses pods already have are kept. */
  run(workers: number): void {
    for (const p of this.d.podInformer.lister.list()) {
      const node = p.spec?.nodeName;
      if (!node || !this.d.owns(node) || p.spec?.hostNetwork || !p.status?.podIP) continue;
      this.pool(node)?.assign(objectKey(p), p.status.podIP);
      this.podNode.set(objectKey(p), node);
    }
    const loop = async () => {
      for (;;) {
        const key = await this.queue.get();
        if (key === undefined) return;
        try {
          const after = await this.reconcile(key);
          this.queue.forget(key);
          if (after !== undefined) this.queue.addAfter(key, after);
        } catch (e) {
          this.d.log.warn('pod sync failed, will retry', { pod: key, error: (e as Error).message });
          this.queue.addRateLimited(key);
        } finally {
          this.queue.done(key);
        }
      }
    };
    this.workers = Array.from({ length: workers }, loop);
  }

  private forget(key: string): void {
    const node = this.podNode.get(key);
    if (node) this.pools.get(node)?.release(key);
    this.podNode.delete(key);
    this.terminatingSince.delete(key);
    this.mountBackoff.forget(key);
  }

  private recorder(node: string): EventRecorder {
    let r = this.recorders.get(node);
    if (!r) this.recorders.set(node, (r = this.d.recorder(node)));
    return r;
  }

  /** Brings one pod to what its kubelet would make of it; returns ms until it wants another look. */
  async reconcile(key: string): Promise<number | undefined> {
    const pod = this.d.podInformer.lister.byKey(key);
    const node: string | undefined = pod?.spec?.nodeName;
    if (!pod || !node || !this.d.owns(node)) {
      this.forget(key);
      return undefined;
    }
    if (this.d.heartbeatStopped(node)) return undefined;
    const now = this.d.clock.now();
    const { namespace, name } = pod.metadata;
    if (pod.metadata.deletionTimestamp) {
      let since = this.terminatingSince.get(key);
      if (since === undefined) this.terminatingSince.set(key, (since = now));
      const delay = Math.min(this.d.terminationDelayMs, (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000);
      if (now < since + delay) return since + delay - now;
      try {
        await this.d.pods(node).delete(namespace, name as string, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
        this.deleted++;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      this.forget(key);
      return undefined;
    }
    if (['Succeeded', 'Failed'].includes(pod.status?.phase ?? '')) return undefined;
    const hostIP = this.d.hostIP(node);
    // Volumes are set up before anything starts; a running pod keeps what it mounted.
    if (pod.status?.phase !== 'Running') {
      const missing = await missingVolume(pod, this.d.secrets(node), this.d.configMaps(node), this.d.claims?.(node));
      if (missing) {
        this.recorder(node).event({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', 'FailedMount', missing.event ?? `MountVolume.SetUp failed for volume "${missing.volume}" : ${missing.message}`);
        if (!isPendingShown(pod, hostIP)) await this.d.pods(node).patch(namespace, name as string, 'merge', { status: pendingStatus(pod, hostIP, now) }, 'status');
        return this.mountBackoff.next(key);
      }
      this.mountBackoff.forget(key);
    }
    let podIP = hostIP;
    if (!pod.spec?.hostNetwork) {
      const pool = this.pool(node);
      if (!pool) return undefined; // no pod CIDR yet: the node update that brings one requeues the pod
      const ip = pool.assign(key, pod.status?.podIP);
      if (!ip) throw new Error(`node ${node}: pod CIDR ${pool.cidr} is out of addresses`);
      podIP = ip;
      this.podNode.set(key, node);
    }
    if (isRunningAndReady(pod, podIP)) return this.exitIfDue(pod, now);
    const status = runningStatus(pod, hostIP, podIP, now);
    await this.d.pods(node).patch(namespace, name as string, 'merge', { status }, 'status');
    this.started++;
    return this.exitIfDue({ ...pod, status }, now);
  }

  /**
   * Containers whose command says when they exit (exit-plan.ts) end then: the pod finishes
   * (restartPolicy Never, or every exit 0), or the failed ones restart (OnFailure).
   * Returns ms until the next exit, or undefined when the pod runs until deleted.
   */
  private async exitIfDue(pod: Pod, now: number): Promise<number | undefined> {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    if (policy === 'Always') return undefined;
    const containers = pod.spec?.containers ?? [];
    const plans = containers.map(exitPlan);
    if (!plans.length || plans.some((p) => p === undefined)) return undefined;
    const statuses = pod.status?.containerStatuses ?? [];
    let due = 0;
    containers.forEach((c, i) => {
      const startedAt = Date.parse(statuses.find((s) => s.name === c.name)?.state?.running?.startedAt ?? '') || now;
      due = Math.max(due, startedAt + plans[i]!.afterMs);
    });
    if (now < due) return due - now;
    const exits = plans.map((p) => p!.exitCode);
    const { namespace, name } = pod.metadata;
    const pods = this.d.pods(pod.spec!.nodeName!);
    if (policy === 'OnFailure' && exits.some((c) => c !== 0)) {
      await pods.patch(namespace, name as string, 'merge', { status: restartedStatus(pod, exits, now) }, 'status');
      return Math.min(...plans.map((p) => p!.afterMs)) || 1000;
    }
    await pods.patch(namespace, name as string, 'merge', { status: finishedStatus(pod, exits, now) }, 'status');
    return undefined;
  }

  async stop(): Promise<void> {
    await this.queue.shutDown();
    await Promise.all(this.workers);
  }
}
