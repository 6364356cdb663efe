// The kubelet's Node: registration (create, or adopt and refresh an existing Node), the
// Lease in kube-node-lease renewed every 10 s, and node status (conditions, capacity,
// addresses, nodeInfo) recomputed every 10 s and posted when it changed or once a minute.
// Ready follows the runtime: a CRI Status check with a short deadline, so a dead containerd
// shows as Ready=False within one interval.
import { ANN_LOCAL_PATH_DIR } from '../api/storage/annotations.js';
import { rfc3339, rfc3339Micro } from '../api/time.js';
import type { CRIRuntime } from '../../cri/index.js';
import { isAlreadyExists, isConflict, isNotFound, resources, type Clock, type ClientsetAPI } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { Backoff } from '../util/index.js';
import type { MachineInfo, PressureSample } from './machine.js';
import { DEFAULT_EVICTION_HARD, crossedThresholds, parseThresholds, type Threshold } from './eviction.js';
import type { Lease, Node } from '../api/kinds.js';
import type { NodeCondition, NodeStatus } from 'kubernetes-types/core/v1.js';

export const KUBELET_VERSION = 'v1.32.0-capstan';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface NodeAgentOptions {
  nodeName: string;
  nodeIP: string;
  clients: ClientsetAPI;
  /** Used for the health check only: give it a short deadline. */
  runtime: CRIRuntime;
  clock: Clock;
  log: Logger;
  machine: MachineInfo;
  pressure: () => Promise<PressureSample>;
  runtimeVersion: string;
  maxPods?: number;
  intervalMs?: number;
  leaseDurationSeconds?: number;
  statusReportIntervalMs?: number;
  kubeletPort?: number;
  /** Hard eviction thresholds: MemoryPressure / DiskPressure (default upstream's). */
  evictionHard?: Threshold[];
  /** While the node shuts down: why it is not Ready (upstream's ShutdownStatus). */
  shutdownStatus?: () => string | undefined;
  /** Called once the Node has a podCIDR (and again if it changes). */
  onPodCIDR?: (cidr: string) => void | Promise<void>;
  /** Published on the Node (capstan.io/local-path-dir): where the local-path provisioner puts this node's volumes. */
  localPathDir?: string;
}

export interface RuntimeHealth { ready: boolean; message: string }

export async function runtimeHealth(runtime: CRIRuntime): Promise<RuntimeHealth> {
  try {
    const st = await runtime.status();
    const conds = st.status?.conditions ?? [];
    const problems: string[] = [];
    for (const type of ['RuntimeReady', 'NetworkReady']) {
      const c = conds.find((x) => x.type === type);
      if (c?.status) continue;
      const what = type === 'RuntimeReady' ? 'container runtime not ready' : 'container runtime network not ready';
      problems.push(`${what}: ${type}=false reason:${c?.reason ?? ''} message:${c?.message ?? ''}`);
    }
    return { ready: problems.length === 0, message: problems.join(', ') };
  } catch (e) {
    return { ready: false, message: `container runtime is down: ${(e as { details?: string }).details ?? (e as Error).message}` };
  }
}

export function nodeConditions(
  health: RuntimeHealth, p: PressureSample, previous: NodeCondition[], now: number, thresholds = parseThresholds(DEFAULT_EVICTION_HARD),
): NodeCondition[] {
  const stamp = rfc3339(new Date(now));
  const crossed = crossedThresholds(thresholds, p);
  const memPressure = crossed.some((c) => c.resource === 'memory');
  const diskPressure = crossed.some((c) => c.resource === 'ephemeral-storage');
  const list: [string, boolean, string, string][] = [
    ['MemoryPressure', memPressure, memPressure ? 'KubeletHasInsufficientMemory' : 'KubeletHasSufficientMemory',
      memPressure ? 'kubelet has insufficient memory available' : 'kubelet has sufficient memory available'],
    ['DiskPressure', diskPressure, diskPressure ? 'KubeletHasDiskPressure' : 'KubeletHasNoDiskPressure',
      diskPressure ? 'kubelet has disk pressure' : 'kubelet has no disk pressure'],
    ['PIDPressure', false, 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
    ['Ready', health.ready, health.ready ? 'KubeletReady' : 'KubeletNotReady', health.ready ? 'kubelet is posting ready status' : health.message],
  ];
  return list.map(([type, on, reason, message]) => {
    const status = on ? 'True' : 'False';
    const old = previous.find((c) => c.type === type);
    return { type, status, reason, message, lastHeartbeatTime: stamp, lastTransitionTime: old?.status === status ? old.lastTransitionTime : stamp };
  });
}

export class NodeAgent {
  private node?: Node;
  private lease?: Lease;
  private timer: unknown;
  private lastPosted = 0;
  private lastConditions = '';
  private podCIDR = '';
  private running = false;
  readonly interval: number;

  constructor(private o: NodeAgentOptions) {
    this.interval = o.intervalMs ?? 10_000;
  }

  get nodeObject(): Node | undefined {
    return this.node;
  }

  private resources(): { [name: string]: string } {
    const m = this.o.machine;
    return {
      cpu: String(m.cpu), memory: `${Math.floor(m.memoryBytes / 1024)}Ki`,
      'ephemeral-storage': `${Math.floor(m.ephemeralStorageBytes / 1024)}Ki`, pods: String(this.o.maxPods ?? 110),
    };
  }

  async status(previous: NodeCondition[]): Promise<NodeStatus> {
    const [runtime, pressure] = await Promise.all([runtimeHealth(this.o.runtime), this.o.pressure()]);
    const shutdown = this.o.shutdownStatus?.();
    const health = shutdown ? { ready: false, message: [runtime.message, shutdown].filter(Boolean).join(',') } : runtime;
    const m = this.o.machine;
    const res = this.resources();
    return {
      capacity: res, allocatable: res,
      conditions: nodeConditions(health, pressure, previous, this.o.clock.now(), this.o.evictionHard),
      addresses: [{ type: 'InternalIP', address: this.o.nodeIP }, { type: 'Hostname', address: this.o.nodeName }],
      daemonEndpoints: { kubeletEndpoint: { Port: this.o.kubeletPort ?? 10250 } },
      nodeInfo: {
        machineID: m.machineID, systemUUID: m.systemUUID, bootID: m.bootID, kernelVersion: m.kernelVersion, osImage: m.osImage,
        containerRuntimeVersion: this.o.runtimeVersion, kubeletVersion: KUBELET_VERSION, kubeProxyVersion: KUBELET_VERSION,
        operatingSystem: 'linux', architecture: m.architecture,
      },
    };
  }

  /** Creates the Node (or refreshes an existing one's labels and status); retries until it works. */
  async register(): Promise<Node> {
    const nodes = this.o.clients.resource(resources.nodes);
    const labels = {
      'kubernetes.io/hostname': this.o.nodeName, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': this.o.machine.architecture,
      'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': this.o.machine.architecture,
    };
    const ownAnnotations: Record<string, string> = this.o.localPathDir ? { [ANN_LOCAL_PATH_DIR]: this.o.localPathDir } : {};
    const backoff = new Backoff({ initialMs: 500, maxMs: 7_000 });
    for (;;) {
      try {
        let node: Node;
        try {
          node = await nodes.create(undefined, {
            apiVersion: 'v1', kind: 'Node',
            metadata: { name: this.o.nodeName, labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', ...ownAnnotations } },
            spec: {},
          });
          this.o.log.info('node registered', { node: this.o.nodeName });
        } catch (e) {
          if (!isAlreadyExists(e)) throw e;
          node = await nodes.patch(undefined, this.o.nodeName, 'merge', { metadata: { labels, annotations: ownAnnotations } });
        }
        this.node = await nodes.patch(undefined, this.o.nodeName, 'merge', { status: await this.status(node.status?.conditions ?? []) }, 'status');
        this.lastPosted = this.o.clock.now();
        this.lastConditions = this.conditionKey(this.node);
        await this.notePodCIDR(this.node);
        return this.node;
      } catch (e) {
        this.o.log.warn('node registration failed, retrying', { error: (e as Error).message });
        const delay = backoff.next();
        await new Promise((r) => this.o.clock.setTimeout(() => r(undefined), delay));
      }
    }
  }

  private conditionKey(node: Node | undefined): string {
    return JSON.stringify((node?.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]));
  }

  private async notePodCIDR(node: Node): Promise<void> {
    const cidr: string = node.spec?.podCIDR ?? '';
    if (!cidr || cidr === this.podCIDR) return;
    this.podCIDR = cidr;
    await this.o.onPodCIDR?.(cidr);
  }

  start(): void {
    this.running = true;
    void this.tick();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
  }

  /** One heartbeat: renew the Lease, refresh status, post it when changed or due. */
  async tick(): Promise<void> {
    try {
      await this.renewLease();
      await this.syncStatus();
    } catch (e) {
      this.o.log.warn('node heartbeat failed', { error: (e as Error).message });
    }
    if (this.running) this.timer = this.o.clock.setTimeout(() => void this.tick(), this.interval);
  }

  async syncStatus(): Promise<void> {
    const nodes = this.o.clients.resource(resources.nodes);
    const now = this.o.clock.now();
    if (!this.podCIDR) {
      this.node = await nodes.get(undefined, this.o.nodeName);
      await this.notePodCIDR(this.node);
    }
    const status = await this.status(this.node?.status?.conditions ?? []);
    const key = JSON.stringify(status.conditions!.map((c) => [c.type, c.status, c.reason, c.message]));
    if (key === this.lastConditions && now - this.lastPosted < (this.o.statusReportIntervalMs ?? 60_000)) return;
    this.node = await nodes.patch(undefined, this.o.nodeName, 'merge', { status }, 'status');
    this.lastPosted = now;
    this.lastConditions = key;
    await this.notePodCIDR(this.node);
  }

  async renewLease(): Promise<void> {
    const leases = this.o.clients.resource(resources.leases);
    const name = this.o.nodeName;
    const renewTime = rfc3339Micro(new Date(this.o.clock.now()));
    if (this.lease) {
      try {
        this.lease = await leases.update({ ...this.lease, spec: { ...this.lease.spec, holderIdentity: name, renewTime } });
        return;
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
        this.lease = undefined;
      }
    }
    try {
      const cur = await leases.get(NODE_LEASE_NAMESPACE, name);
      this.lease = await leases.update({ ...cur, spec: { ...cur.spec, holderIdentity: name, renewTime } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      this.lease = await leases.create(NODE_LEASE_NAMESPACE, {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
        metadata: {
          name, namespace: NODE_LEASE_NAMESPACE,
          ownerReferences: this.node ? [{ apiVersion: 'v1', kind: 'Node', name, uid: this.node.metadata.uid as string }] : undefined,
        },
        spec: { holderIdentity: name, leaseDurationSeconds: this.o.leaseDurationSeconds ?? 40, renewTime },
      });
    }
  }
}
