// The scheduler: informer handlers keep the cache and queue current (and only that); one
// loop pops pods, runs the algorithm on the cache, assumes the pod on the chosen node and
// hands the bind to the Binder without waiting for it. Failures go back to the queue with
// a FailedScheduling event and the PodScheduled=False condition.
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { fromLabelSelector, matches, type Selector } from '../api/labels.js';
import { rfc3339 } from '../api/time.js';
import { realClock, resources, type ClientsetAPI, type Clock, type EventRecorder, type SharedInformer, type SharedInformerFactory } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { Algorithm, FitError } from './algorithm.js';
import { Binder } from './binder.js';
import { SchedulerCache } from './cache.js';
import type { NodeInfo } from './nodeinfo.js';
import { schedulerMetrics, type SchedulerMetrics } from './metrics.js';
import { newPodInfo, type PodInfo } from './podinfo.js';
import { Preemptor, type Candidate } from './preemption.js';
import { defaultFilters, defaultScorers, type CycleState, type FilterPlugin, type ScorePlugin } from './plugins/index.js';
import { SchedulingQueue, type QueueOptions, type QueuedPod } from './queue.js';
import { nodeChangeMayHelp, podSchedulingChanged, isTerminal } from './changes.js';
import { VolumeBinding } from './volume-binding.js';
import type { Namespace, Pod, PodDisruptionBudget, Service } from '../api/kinds.js';

export const defaultSchedulerName = 'default-scheduler';

export interface SchedulerOptions {
  clients: ClientsetAPI;
  informers: SharedInformerFactory;
  clock?: Clock;
  log?: Logger;
  recorder?: EventRecorder;
  registry?: Registry;
  schedulerName?: string;
  /** 0 (default) = adaptive, as kube-scheduler. */
  percentageOfNodesToScore?: number;
  /** Binds in flight at once (default 32). */
  bindConcurrency?: number;
  queue?: QueueOptions;
  random?: () => number;
  filters?: FilterPlugin[];
  scorers?: ScorePlugin[];
  /** Called after each successful bind (benchmarks count with it). */
  onBound?: (pod: Pod, node: string) => void;
  /** The VolumeBinding filter and selected-node annotations (default on; benchmarks without claims may turn it off). */
  volumeBinding?: boolean;
  /** DefaultPreemption (default on). */
  preemption?: boolean;
}

export interface SchedulerStats {
  scheduled: number;
  unschedulable: number;
  errors: number;
  /** Time spent in the filter/score algorithm, ms. */
  algorithmMs: number;
  /** CPU time (the process's, user + system) spent in it, ms: the figure a loaded machine does not inflate. */
  algorithmCpuMs: number;
}

export class Scheduler {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  readonly stats: SchedulerStats = { scheduled: 0, unschedulable: 0, errors: 0, algorithmMs: 0, algorithmCpuMs: 0 };
  readonly metrics: SchedulerMetrics;
  readonly registry: Registry;
  private readonly pods: SharedInformer<Pod>;
  private readonly services: SharedInformer<Service>;
  private readonly algorithm: Algorithm;
  private readonly binder: Binder;
  private readonly volumes?: VolumeBinding;
  private readonly preemptor?: Preemptor;
  private readonly namespaces: SharedInformer<Namespace>;
  private readonly clock: Clock;
  private readonly name: string;
  private selectorCache = new WeakMap<Service, Selector | null>();
  private stopped = false;
  private loop?: Promise<void>;

  constructor(private opts: SchedulerOptions) {
    this.clock = opts.clock ?? realClock;
    this.name = opts.schedulerName ?? defaultSchedulerName;
    this.queue = new SchedulingQueue(this.clock, opts.queue);
    if (opts.volumeBinding !== false) this.volumes = new VolumeBinding(opts.informers, opts.clients, () => this.queue.moveAll());
    const filters = [...(opts.filters ?? defaultFilters), ...(this.volumes ? [this.volumes.filter] : [])];
    this.algorithm = new Algorithm({ filters, scorers: opts.scorers ?? defaultScorers, percentageOfNodesToScore: opts.percentageOfNodesToScore, random: opts.random });
    this.binder = new Binder(opts.clients.resource(resources.pods), opts.bindConcurrency ?? 32);
    this.registry = opts.registry ?? new Registry();
    this.metrics = schedulerMetrics(this.registry, () => this.queue.stats());
    this.pods = opts.informers.informerFor(resources.pods);
    this.services = opts.informers.informerFor(resources.services);
    this.namespaces = opts.informers.informerFor(resources.namespaces);
    this.cache.namespaceLabels = (ns) => this.namespaces.lister.get(undefined, ns)?.metadata.labels;
    if (opts.preemption !== false) {
      const pdbs: SharedInformer<PodDisruptionBudget> = opts.informers.informerFor(resources.poddisruptionbudgets);
      this.preemptor = new Preemptor(this.algorithm, () => pdbs.lister.list(), opts.random);
    }
    opts.informers.informerFor(resources.nodes).addEventHandler({
      onAdd: (n) => { this.cache.addNode(n); this.queue.moveAll(); },
      onUpdate: (old, n) => {
        if (old === n) return;
        this.cache.updateNode(n);
        if (nodeChangeMayHelp(old, n)) this.queue.moveAll();
      },
      onDelete: (n) => this.cache.removeNode(n),
    });
    this.pods.addEventHandler({
      onAdd: (p) => this.podAdded(p),
      onUpdate: (old, p) => this.podUpdated(old, p),
      onDelete: (p) => this.podDeleted(p),
    });
  }

  private responsible(pod: Pod): boolean {
    return (pod.spec?.schedulerName || defaultSchedulerName) === this.name;
  }

  private podAdded(pod: Pod): void {
    if (isTerminal(pod)) return;
    if (pod.spec?.nodeName) { this.assignedPodAdded(pod); return; }
    if (this.responsible(pod) && !pod.metadata.deletionTimestamp) this.queue.add(this.pendingInfo(pod));
  }

  /** A pod newly seen on a node may be what a pending pod's affinity or spread waits for. */
  private assignedPodAdded(pod: Pod): void {
    this.cache.addOrUpdatePod(pod);
    this.queue.moveWhere(mayWaitForPods);
  }

  /** A pending pod's PodInfo, its nomination (status.nominatedNodeName) recorded in the cache. */
  private pendingInfo(pod: Pod): PodInfo {
    const info = newPodInfo(pod);
    const nominated = (pod.status?.nominatedNodeName as string | undefined) ?? '';
    if (nominated || this.cache.nominatedNode(info.uid)) this.cache.nominate(info, nominated);
    return info;
  }

  private podUpdated(old: Pod, pod: Pod): void {
    if (old === pod) return;
    const uid = pod.metadata.uid as string;
    if (pod.spec?.nodeName) {
      if (!old.spec?.nodeName) { this.queue.delete(uid); this.cache.nominate(newPodInfo(pod), ''); this.queue.moveWhere(mayWaitForPods); }
      if (isTerminal(pod)) {
        // A finished pod frees its node's resources.
        this.cache.removePod(pod);
        if (!isTerminal(old)) this.queue.moveAll();
      } else {
        this.cache.addOrUpdatePod(pod);
      }
      return;
    }
    if (isTerminal(pod) || pod.metadata.deletionTimestamp || !this.responsible(pod)) { this.queue.delete(uid); return; }
    // Our own bind is in flight; the informer will show the pod bound shortly.
    if (this.cache.isAssumed(uid)) return;
    this.queue.update(this.pendingInfo(pod), podSchedulingChanged(old, pod));
  }

  private podDeleted(pod: Pod): void {
    this.queue.delete(pod.metadata.uid as string);
    if (!pod.spec?.nodeName) this.cache.nominate(newPodInfo(pod), '');
    const wasHere = !!pod.spec?.nodeName || this.cache.isAssumed(pod.metadata.uid as string);
    this.cache.removePod(pod);
    if (wasHere) this.queue.moveAll();
  }

  /** Runs the scheduling loop until stop(). Informers must be started and synced. */
  run(): Promise<void> {
    this.loop ??= this.runLoop();
    return this.loop;
  }

  private async runLoop(): Promise<void> {
    this.queue.run();
    while (!this.stopped) {
      const first = await this.queue.pop();
      if (!first || this.stopped) break;
      this.scheduleOne(first);
      // Work through what is queued for a few milliseconds, then let informer events in.
      const until = performance.now() + 5;
      for (let q = this.queue.tryPop(); q; q = performance.now() < until ? this.queue.tryPop() : undefined) {
        this.scheduleOne(q);
        if (this.stopped) return;
      }
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.close();
    await this.loop;
    await this.binder.idle();
  }

  /** Pods waiting to be tried again (unschedulable or backing off) or to be popped. */
  pending(): number {
    const s = this.queue.stats();
    return s.active + s.backoff + s.unschedulable;
  }

  private serviceSelectors(pod: Pod): Selector[] {
    const out: Selector[] = [];
    const ns = pod.metadata.namespace;
    if (!ns) return out;
    for (const svc of this.services.lister.list(ns)) {
      let sel = this.selectorCache.get(svc);
      if (sel === undefined) {
        const raw = svc.spec?.selector as Record<string, string> | undefined;
        sel = raw && Object.keys(raw).length ? fromLabelSelector({ matchLabels: raw }) : null;
        this.selectorCache.set(svc, sel);
      }
      if (sel && matches(sel, pod.metadata.labels)) out.push(sel);
    }
    return out;
  }

  /** One attempt for one popped pod; synchronous up to handing the bind off. */
  scheduleOne(q: QueuedPod): void {
    const info = q.info;
    const cur = this.pods.lister.get(info.namespace, info.pod.metadata.name as string);
    if (!cur || cur.metadata.uid !== info.uid || cur.spec?.nodeName || cur.metadata.deletionTimestamp) {
      this.queue.done(info.uid);
      return;
    }
    if (info.invalid) { this.failed(q, `Pod is invalid for scheduling: ${info.invalid}`, true); return; }
    // The CPU reading's system call stays outside the wall-clock window.
    const cpu0 = process.cpuUsage(), t0 = performance.now();
    const state: CycleState = {
      serviceSelectors: this.serviceSelectors(info.pod), ownerNodes: info.ownerUID ? this.cache.ownerNodes(info.ownerUID) ?? noPods : undefined,
      cluster: this.cache,
    };
    const result = this.algorithm.schedule(info, this.cache.nodeList(), state);
    const ms = performance.now() - t0;
    this.stats.algorithmMs += ms;
    this.stats.algorithmCpuMs += cpuMs(cpu0);
    this.metrics.algorithmLatency.observe(ms / 1000);
    if (result instanceof FitError) { this.failed(q, this.postFilter(info, state, result), true); return; }
    this.cache.nominate(info, '');
    this.cache.assumePod(info, result);
    this.queue.done(info.uid);
    const { namespace, pod } = info;
    const name = pod.metadata.name as string;
    const volumes = this.volumes;
    const bind = volumes ? volumes.selectNode(pod, result).then(() => this.binder.bind(namespace, name, info.uid, result)) : this.binder.bind(namespace, name, info.uid, result);
    bind.then(() => {
      this.stats.scheduled++;
      this.metrics.attempts.inc({ result: 'scheduled', profile: this.name });
      this.metrics.e2eLatency.observe({ result: 'scheduled', profile: this.name }, (this.clock.now() - q.firstSeen) / 1000);
      this.opts.recorder?.event(podRef(pod), 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${result}`);
      this.opts.onBound?.(pod, result);
    }, (e: Error) => {
      this.cache.forgetPod(info);
      this.opts.log?.warn('bind failed', { pod: info.key, node: result, error: e.message });
      this.failed(q, `Binding rejected: ${e.message}`, false);
    });
  }

  /** DefaultPreemption: nominate a node and evict victims there, or say why not. Returns the FailedScheduling message. */
  private postFilter(info: PodInfo, state: CycleState, fit: FitError): string {
    if (!this.preemptor) return fit.message;
    const why = this.preemptor.ineligible(info, this.cache.nominatedNode(info.uid));
    if (why) return `${fit.message} preemption: ${why}`;
    const cpu0 = process.cpuUsage(), t0 = performance.now();
    const outcome = this.preemptor.preempt(info, this.cache.nodeList(), state);
    this.stats.algorithmMs += performance.now() - t0;
    this.stats.algorithmCpuMs += cpuMs(cpu0);
    if ('message' in outcome) return `${fit.message} ${outcome.message}`;
    this.preemptOn(info, outcome);
    return fit.message;
  }

  private preemptOn(info: PodInfo, c: Candidate): void {
    const node = c.node.name;
    const pods = this.opts.clients.resource(resources.pods);
    const warn = (what: string, pod: string) => (e: Error) => this.opts.log?.warn(what, { pod, error: e.message });
    this.cache.nominate(info, node);
    const now = rfc3339(new Date(this.clock.now()));
    for (const v of c.victims) {
      const ns = v.namespace, name = v.pod.metadata.name as string;
      const condition = { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: `${this.name}: preempting to accommodate a higher priority pod`, lastTransitionTime: now };
      this.opts.recorder?.event(podRef(v.pod), 'Normal', 'Preempted', `Preempted by pod ${info.uid} on node ${node}`);
      pods.patch(ns, name, 'strategic', { status: { conditions: [condition] } }, 'status')
        .catch(warn('victim condition not set', v.key))
        .then(() => pods.delete(ns, name, { preconditions: { uid: v.uid } }))
        .catch(warn('victim not deleted', v.key));
    }
    // Lower-priority pods nominated to this node lose the room they were promised.
    for (const other of [...c.node.nominated.values()]) {
      if (other.uid === info.uid || other.priority >= info.priority) continue;
      this.cache.nominate(other, '');
      pods.patch(other.namespace, other.pod.metadata.name as string, 'merge', { status: { nominatedNodeName: null } }, 'status').catch(warn('nomination not cleared', other.key));
    }
    pods.patch(info.namespace, info.pod.metadata.name as string, 'merge', { status: { nominatedNodeName: node } }, 'status').catch(warn('nomination not recorded', info.key));
  }

  private failed(q: QueuedPod, message: string, unschedulable: boolean): void {
    if (unschedulable) this.stats.unschedulable++;
    else this.stats.errors++;
    this.metrics.attempts.inc({ result: unschedulable ? 'unschedulable' : 'error', profile: this.name });
    const info = q.info;
    const cur = this.pods.lister.get(info.namespace, info.pod.metadata.name as string);
    if (!cur || cur.metadata.uid !== info.uid || cur.spec?.nodeName || cur.metadata.deletionTimestamp) {
      this.queue.done(info.uid);
      return;
    }
    if (cur.metadata.resourceVersion !== info.pod.metadata.resourceVersion) q.info = this.pendingInfo(cur);
    if (unschedulable) this.queue.addUnschedulable(q);
    else this.queue.addBackoff(q);
    this.opts.log?.debug('pod not scheduled', { pod: info.key, reason: 'FailedScheduling', message });
    this.opts.recorder?.event(podRef(cur), 'Warning', 'FailedScheduling', message);
    this.setUnschedulableCondition(cur, message);
  }

  private setUnschedulableCondition(pod: Pod, message: string): void {
    const conds = (pod.status?.conditions ?? []) as { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
    const prev = conds.find((c) => c.type === 'PodScheduled');
    if (prev?.status === 'False' && prev.reason === 'Unschedulable' && prev.message === message) return;
    const now = rfc3339(new Date(this.clock.now()));
    const condition = {
      type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message,
      lastProbeTime: null, lastTransitionTime: prev?.status === 'False' ? prev.lastTransitionTime ?? now : now,
    };
    this.opts.clients.resource(resources.pods)
      .patch(pod.metadata.namespace, pod.metadata.name as string, 'strategic', { status: { conditions: [condition] } }, 'status')
      .catch((e: Error) => this.opts.log?.warn('pod condition not updated', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, error: e.message }));
  }
}

const noPods: ReadonlyMap<NodeInfo, number> = new Map<NodeInfo, number>();

function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** Pods another pod's arrival can help: required pod affinity, or a DoNotSchedule spread (upstream's Pod/Add hints). */
function mayWaitForPods(info: PodInfo): boolean {
  return !!info.affinity?.requiredAffinity.length || info.spread.some((c) => c.whenUnsatisfiable === 'DoNotSchedule');
}

function podRef(pod: Pod): Pod {
  return { ...pod, apiVersion: 'v1', kind: 'Pod' };
}
