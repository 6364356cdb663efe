// Graceful node shutdown, after upstream's nodeshutdown manager: with shutdownGracePeriod
// (and shutdownGracePeriodCriticalPods) set, a shutdown stops the node's pods in priority
// groups — regular pods first with (grace − critical) seconds, then pods at or above
// system-cluster-critical's priority with the critical seconds — each pod with its own grace
// period capped by its group's, its status Failed / `Terminated` with a DisruptionTarget
// condition. A group's pods stop together; the next group starts when they are all down or
// the group's time is up. Meanwhile the node reports Ready=False ("node is shutting down")
// and new pods are rejected (`NodeShutdown`). Upstream learns of a shutdown from logind's
// inhibitor lock; capstan's kubelet takes the SIGTERM it is sent as the shutdown (only when
// the grace period is set: otherwise a restart leaves pods running, as before).
import type { Clock } from '../client/index.js';
import type { Logger } from '../log/index.js';
import type { Pod } from '../api/kinds.js';

export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = 'NodeShutdown';
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = 'Pod was rejected as the node is shutting down.';
/** What the Ready condition says while the node shuts down (upstream's ShutdownStatus error). */
export const NODE_SHUTTING_DOWN = 'node is shutting down';
/** system-cluster-critical's value (scheduling.SystemCriticalPriority). */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

export interface ShutdownGroup { priority: number; seconds: number }

/** Upstream's migration of the two flags into priority groups; none when shutdown is off. */
export function shutdownGroups(gracePeriodSeconds: number, criticalSeconds: number): ShutdownGroup[] {
  if (gracePeriodSeconds <= 0) return [];
  const regular = gracePeriodSeconds - criticalSeconds;
  if (regular < 0) return [];
  return [{ priority: 0, seconds: regular }, { priority: SYSTEM_CRITICAL_PRIORITY, seconds: gracePeriodSeconds - regular }];
}

/** Pods into the groups (sorted by priority, low first): a pod goes to the highest group whose priority it reaches (below the lowest: the lowest). */
export function groupByPriority(groups: ShutdownGroup[], pods: Pod[]): { group: ShutdownGroup; pods: Pod[] }[] {
  const out = [...groups].sort((a, b) => a.priority - b.priority).map((group) => ({ group, pods: [] as Pod[] }));
  if (!out.length) return out;
  for (const pod of pods) {
    const priority = pod.spec?.priority ?? 0;
    let index = 0;
    for (let i = 0; i < out.length; i++) if (out[i]!.group.priority <= priority) index = i;
    out[index]!.pods.push(pod);
  }
  return out;
}

/** The pod's own grace period when shorter than its group's, else the group's. */
export function shutdownGrace(pod: Pod, group: ShutdownGroup): number {
  const own = pod.spec?.terminationGracePeriodSeconds;
  return own !== undefined && own !== null && own <= group.seconds ? own : group.seconds;
}

export interface NodeShutdownOptions {
  groups: ShutdownGroup[];
  clock: Clock;
  log: Logger;
  /** The pods to stop (active on this node). */
  activePods(): Pod[];
  /** Marks the pod Failed / Terminated and stops its containers within `graceSeconds`; resolves when they are down. */
  killPod(pod: Pod, graceSeconds: number): Promise<void>;
  /** Posts node status now (Ready=False). */
  syncNodeStatus(): Promise<void>;
  /** The NodeShutdown event on the Node. */
  nodeEvent(message: string): void;
}

export class NodeShutdownManager {
  private shuttingDown = false;

  constructor(private o: NodeShutdownOptions) {}

  get enabled(): boolean {
    return this.o.groups.length > 0;
  }

  /** Upstream's ShutdownStatus: the Ready condition's message while shutting down. */
  status(): string | undefined {
    return this.shuttingDown ? NODE_SHUTTING_DOWN : undefined;
  }

  /** Stops every pod group by group; resolves when the last group is done or out of time. */
  async shutdown(): Promise<void> {
    if (!this.enabled || this.shuttingDown) return;
    this.shuttingDown = true;
    this.o.nodeEvent('Shutdown manager detected shutdown event');
    await this.o.syncNodeStatus().catch((e: Error) => this.o.log.warn('posting node status at shutdown failed', { error: e.message }));
    for (const { group, pods } of groupByPriority(this.o.groups, this.o.activePods())) {
      if (!pods.length) continue;
      this.o.log.info('shutting down pods', { priority: group.priority, gracePeriodSeconds: group.seconds, pods: pods.length });
      let timer: unknown;
      const outOfTime = new Promise<'timeout'>((r) => { timer = this.o.clock.setTimeout(() => r('timeout'), group.seconds * 1000); });
      const killed = Promise.all(pods.map((pod) => this.o.killPod(pod, shutdownGrace(pod, group)).catch((e: Error) =>
        this.o.log.warn('shutdown manager failed killing pod', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, error: e.message }))));
      const outcome = await Promise.race([killed.then(() => 'done' as const), outOfTime]);
      this.o.clock.clearTimeout(timer);
      if (outcome === 'timeout') this.o.log.warn('shutdown manager pod killing time out', { priority: group.priority, gracePeriodSeconds: group.seconds });
    }
  }
}
