// The kubelet: registers the Node and keeps it alive, watches the pods bound to it, and
// runs one serialised worker per pod over CRI. Housekeeping finds runtime pods the API no
// longer has (deleted while the kubelet was away) and hands them to workers to remove.
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Registry } from 'prom-client';
import { isDeadlineExceeded, isUnavailable, type CRIRuntime } from '../../cri/index.js';
import {
  EventRecorder, SharedInformer, isAlreadyExists, isConflict, isNotFound, realClock, resources, type Clock, type ClientsetAPI, type ResourceType,
} from '../client/index.js';
import { logger, type Logger } from '../log/index.js';
import { removeCgroup } from './containerd/index.js';
import { writePtpConfig } from './cni-config.js';
import type { ObjectSource } from './env.js';
import { ImageManager } from './images.js';
import { DEFAULT_IMAGE_GC_POLICY, ImageGCManager, type ImageGCPolicy } from './image-gc.js';
import { DEFAULT_SANDBOX_IMAGE } from './containerd/config.js';
import { defaultNodeIP, machineInfo, pressureSample, type MachineInfo, type PressureSample } from './machine.js';
import { NodeAgent } from './node-agent.js';
import { kubeletMetrics } from './metrics.js';
import { PodSyncer, type PodMemory, type SyncSettings } from './pod-sync.js';
import { PodWorkers } from './pod-workers.js';
import { ProbeManager } from './probe-manager.js';
import { defaultProbeRunner, type ProbeRunner } from './prober.js';
import { RuntimeStateReader, trackingRuntime } from './runtime-state.js';
import { TokenManager, type RequestToken } from './token-manager.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { Node, Pod, Service } from '../api/kinds.js';
import type { ObjectBase } from '../api/object.js';
import { admitPod } from './admission.js';
import {
  DEFAULT_EVICTION_HARD, ThresholdTracker, crossedThresholds, evictionGrace, evictionMessage, parseThresholds, rankForEviction, type ContainerUsage, type Threshold,
} from './eviction.js';
import { podStats } from './stats/index.js';
import type { PodStats } from '../api/stats/summary.js';
import { value } from '../util/index.js';
import { rfc3339 } from '../api/time.js';
import { ContainerEvents } from './container-events.js';
import { CONFIG_HASH, CONFIG_MIRROR, StaticPodSource, isMirrorPod, mirrorPodFor } from './static-pods.js';
import { ensurePodCgroup, type CgroupResources } from './pod-cgroups.js';
import { qosClass } from './pod-spec.js';
import {
  NODE_SHUTDOWN_MESSAGE, NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE, NODE_SHUTDOWN_NOT_ADMITTED_REASON, NODE_SHUTDOWN_REASON, NodeShutdownManager, shutdownGroups,
} from './node-shutdown.js';

export interface KubeletOptions {
  nodeName: string;
  clients: ClientsetAPI;
  runtime: CRIRuntime;
  /** The same runtime behind a client with a short deadline, for the Ready check. */
  healthRuntime?: CRIRuntime;
  /** Node state (pod volumes, hosts files): <rootDir>/pods/<uid>/… */
  rootDir: string;
  /** Pod log directories; default /var/log/pods for /var/lib/kubelet, else <rootDir>/logs/pods. */
  logRoot?: string;
  /** cgroupfs prefix of pod cgroups (default "/": /kubepods/…). */
  cgroupRoot?: string;
  clusterDNS?: string[];
  clusterDomain?: string;
  resolvConf?: string;
  nodeIP?: string;
  clock?: Clock;
  log?: Logger;
  /** Default resync of every pod (status, configMap/secret volumes); 10 s. */
  resyncMs?: number;
  housekeepingMs?: number;
  nodeStatusIntervalMs?: number;
  machine?: MachineInfo;
  pressure?: () => Promise<PressureSample>;
  probeRunner?: ProbeRunner;
  removeCgroup?: (path: string) => void;
  /** Creates a pod cgroup with its limits (default: in /sys/fs/cgroup). */
  ensureCgroup?: (path: string, resources: CgroupResources) => void | Promise<void>;
  maxPods?: number;
  kubeletPort?: number;
  /** Pods whose sandbox is being created at once (default 4; 0 = unbounded). */
  parallelPodStarts?: number;
  /** Write a ptp + host-local CNI config for the node's podCIDR into this dir when it has none. */
  cniConfDir?: string;
  /** A service account token older than this is refreshed whatever its expiry (upstream's
   *  fixed 24 h; tests shorten it to see a refresh). */
  tokenMaxTTLMs?: number;
  /** containerd's socket: container exits arrive as its task events (else only resyncs see them). */
  eventsSocket?: string;
  /** Hard eviction thresholds (--eviction-hard; default upstream's). */
  evictionHard?: Threshold[];
  /** Soft eviction thresholds, each with its grace period (--eviction-soft, --eviction-soft-grace-period). */
  evictionSoft?: Threshold[];
  /** The most grace a pod evicted for a soft threshold gets (--eviction-max-pod-grace-period). */
  evictionMaxPodGracePeriodSeconds?: number;
  /** Pods' memory usage for ranking (default: CRI container stats). */
  podStats?: () => Promise<PodStats[]>;
  /** How often pressure is checked for eviction (upstream's 10 s). */
  evictionIntervalMs?: number;
  /** Static pod manifests (upstream's --pod-manifest-path): run here, mirrored to the API. */
  podManifestPath?: string;
  /** Re-read period of podManifestPath besides its watch (--file-check-frequency, 20 s). */
  fileCheckFrequencyMs?: number;
  /** Where the kubelet's metrics go (kubelet_pod_worker_duration_seconds …); default its own. */
  registry?: Registry;
  /** Image GC thresholds and minimum age (upstream's defaults 85/80 %, 2 min). */
  imageGC?: Partial<ImageGCPolicy>;
  /** How often image GC runs (upstream's ImageGCPeriod, 5 min). */
  imageGCPeriodMs?: number;
  /** The runtime's sandbox image, which image GC keeps. */
  podInfraImage?: string;
  /** Graceful node shutdown (upstream's shutdownGracePeriod / shutdownGracePeriodCriticalPods); 0: off. */
  shutdownGracePeriodSeconds?: number;
  shutdownGracePeriodCriticalPodsSeconds?: number;
}

/** Whether two versions of a pod ask the same of the kubelet: a status-only change (often its own write) does not. */
function sameDesiredState(a: Pod, b: Pod): boolean {
  const desired = (p: Pod) => [p.spec, p.metadata.labels, p.metadata.annotations, p.metadata.deletionTimestamp, p.metadata.deletionGracePeriodSeconds];
  return isDeepStrictEqual(desired(a), desired(b));
}

function apiObjects(clients: ClientsetAPI): ObjectSource {
  const get = async <T extends ObjectBase>(type: ResourceType<T>, ns: string | undefined, name: string) => {
    try {
      return await clients.resource(type).get(ns, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  return {
    configMap: (ns, name) => get(resources.configmaps, ns, name),
    secret: (ns, name) => get(resources.secrets, ns, name),
    claim: (ns, name) => get(resources.persistentvolumeclaims, ns, name),
    volume: (name) => get(resources.persistentvolumes, undefined, name),
  };
}

/** The TokenRequest API: POST serviceaccounts/NAME/token. */
function requestToken(clients: ClientsetAPI): RequestToken {
  return async (ns, name, tr) => await clients.resource(resources.serviceaccounts).createSubresource(ns, name, 'token', {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', ...tr,
  }) as TokenRequest;
}

/** How long start() waits for the container runtime to answer before giving up. */
const RUNTIME_WAIT_MS = 5 * 60_000;

export class Kubelet {
  readonly nodeName: string;
  readonly logRoot: string;
  readonly workers: PodWorkers;
  readonly probes: ProbeManager;
  readonly syncer: PodSyncer;
  readonly reader: RuntimeStateReader;
  readonly informer: SharedInformer<Pod>;
  /** Every Service, for the containers' Service variables (as upstream's kubelet watches them). */
  readonly services: SharedInformer<Service>;
  /** This node's Node object (labels and taints for admission). */
  readonly nodes: SharedInformer<Node>;
  readonly recorder: EventRecorder;
  readonly settings: SyncSettings;
  readonly tokens: TokenManager;
  readonly imageGC: ImageGCManager;
  agent?: NodeAgent;
  /** The kubelet's metrics, for /metrics. */
  readonly registry: Registry;
  private memory = new Map<string, PodMemory>();
  private known = new Map<string, Pod>();
  /** Pods admitted to run here (upstream's admitted set); a rejected pod never gets in. */
  private admitted = new Set<string>();
  /** Static pods by uid (from podManifestPath), and those just removed whose mirror must go. */
  private staticPods = new Map<string, Pod>();
  private staticGone = new Map<string, Pod>();
  private staticSource?: StaticPodSource;
  private events?: ContainerEvents;
  /** Pods evicted by this kubelet. */
  private evicted = new Set<string>();
  /** Pods this kubelet stops with a grace period of its own (eviction: 0; node shutdown: the group's). */
  private graceOverride = new Map<string, number>();
  readonly shutdownManager: NodeShutdownManager;
  private evictionTimer: unknown;
  private thresholds = new ThresholdTracker();
  private clock: Clock;
  private log: Logger;
  private housekeepingTimer: unknown;
  private imageGCTimer: unknown;
  /** The latest image GC pass (tests wait for it). */
  imageGCPass: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private o: KubeletOptions) {
    this.nodeName = o.nodeName;
    this.clock = o.clock ?? realClock;
    this.log = o.log ?? logger('kubelet', { node: o.nodeName });
    this.logRoot = o.logRoot ?? (o.rootDir === '/var/lib/kubelet' ? '/var/log/pods' : join(o.rootDir, 'logs', 'pods'));
    this.recorder = new EventRecorder(o.clients.resource(resources.events), { component: 'kubelet', host: o.nodeName }, this.clock, this.log);
    this.reader = new RuntimeStateReader(o.runtime, () => this.clock.now());
    // The kubelet's own changes keep the reader's node-wide List (kept while the events flow) true.
    const runtime = trackingRuntime(o.runtime, this.reader);
    const runner = o.probeRunner ?? defaultProbeRunner(o.runtime);
    this.probes = new ProbeManager(runner, this.clock, (uid) => this.workers.enqueue(uid), this.recorder);
    const machine = o.machine;
    this.settings = {
      rootDir: o.rootDir, logRoot: this.logRoot, cgroupRoot: o.cgroupRoot ?? '/', nodeName: o.nodeName,
      nodeIP: o.nodeIP ?? defaultNodeIP(), runtimeName: 'containerd',
      clusterDNS: o.clusterDNS ?? ['10.96.0.10'], clusterDomain: o.clusterDomain ?? 'cluster.local', resolvConf: o.resolvConf ?? '/etc/resolv.conf',
      allocatable: { cpu: machine?.cpu ?? 1, memory: machine?.memoryBytes ?? 0 }, maxDeadPerContainer: 2, parallelPodStarts: o.parallelPodStarts ?? 10,
    };
    const objects = apiObjects(o.clients);
    this.tokens = new TokenManager(requestToken(o.clients), { clock: this.clock, log: this.log, maxTTLMs: o.tokenMaxTTLMs });
    this.syncer = new PodSyncer({
      runtime, reader: this.reader, probes: this.probes, runner,
      images: new ImageManager(o.runtime, this.recorder, () => this.clock.now(), objects.secret),
      clients: o.clients, objects, services: (ns) => [this.services.lister.get('default', 'kubernetes'), ...this.services.lister.list(ns)].filter((x): x is Service => !!x), tokens: this.tokens, recorder: this.recorder, clock: this.clock, log: this.log,
      removeCgroup: o.removeCgroup ?? ((p) => { removeCgroup(p); }),
      ensureCgroup: o.ensureCgroup ?? ensurePodCgroup,
      settings: this.settings,
    });
    this.imageGC = new ImageGCManager({ ...DEFAULT_IMAGE_GC_POLICY, ...o.imageGC }, {
      runtime: o.runtime, clock: this.clock, log: this.log, recorder: this.recorder, nodeName: o.nodeName,
      sandboxImage: o.podInfraImage ?? DEFAULT_SANDBOX_IMAGE,
    });
    this.registry = o.registry ?? new Registry();
    const metrics = kubeletMetrics(this.registry);
    this.workers = new PodWorkers((uid) => this.syncOne(uid), this.clock, this.log, o.resyncMs ?? 10_000, undefined,
      (operation, seconds) => metrics.podWorkerDuration.observe({ operation_type: operation }, seconds));
    this.services = new SharedInformer(o.clients.resource(resources.services), { log: this.log, clock: this.clock });
    this.informer = new SharedInformer(o.clients.resource(resources.pods), { fieldSelector: `spec.nodeName=${o.nodeName}`, log: this.log, clock: this.clock });
    this.nodes = new SharedInformer(o.clients.resource(resources.nodes), { fieldSelector: `metadata.name=${o.nodeName}`, log: this.log, clock: this.clock });
    this.shutdownManager = new NodeShutdownManager({
      groups: shutdownGroups(o.shutdownGracePeriodSeconds ?? 0, o.shutdownGracePeriodCriticalPodsSeconds ?? 0),
      clock: this.clock, log: this.log,
      activePods: () => this.activePods(''),
      killPod: (pod, grace) => this.killForShutdown(pod, grace),
      syncNodeStatus: async () => { await this.agent?.syncStatus(); },
      nodeEvent: (message) => this.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, uid: this.nodeName } }, 'Normal', 'NodeShutdown', message),
    });
    this.informer.addEventHandler({
      onAdd: (p) => this.observe(p),
      onUpdate: (old, p) => this.observe(p, !sameDesiredState(old, p)),
      onDelete: (p) => {
        if (isMirrorPod(p)) return this.mirrorChanged(p);
        const uid = p.metadata.uid as string;
        this.known.delete(uid);
        this.workers.enqueue(uid);
      },
    });
  }

  private observe(p: Pod, changed = false): void {
    // A mirror pod is the API's view of a static pod: the static pod's worker keeps it.
    if (isMirrorPod(p)) return this.mirrorChanged(p);
    const uid = p.metadata.uid as string;
    this.known.set(uid, p);
    this.workers.enqueue(uid, 0, changed);
  }

  private staticByName(namespace: string | undefined, name: string | undefined): Pod | undefined {
    for (const p of this.staticPods.values()) if (p.metadata.namespace === namespace && p.metadata.name === name) return p;
    return undefined;
  }

  private mirrorChanged(mirror: Pod): void {
    const pod = this.staticByName(mirror.metadata.namespace, mirror.metadata.name);
    if (pod) this.workers.enqueue(pod.metadata.uid as string);
  }

  /** The manifest directory's pods now: new and changed ones start, removed ones stop. */
  private setStaticPods(pods: Map<string, Pod>): void {
    for (const [uid, pod] of this.staticPods) {
      if (pods.has(uid)) continue;
      this.staticPods.delete(uid);
      this.staticGone.set(uid, pod);
      this.workers.enqueue(uid);
    }
    for (const [uid, pod] of pods) {
      const known = this.staticPods.has(uid);
      this.staticPods.set(uid, pod);
      if (!known) this.workers.enqueue(uid, 0, true);
    }
  }

  /** The mirror pod for a static pod: created when missing, replaced when stale or being deleted. */
  private async syncMirror(pod: Pod, mirror: Pod | undefined): Promise<void> {
    const pods = this.o.clients.resource(resources.pods);
    const hash = pod.metadata.annotations?.[CONFIG_HASH];
    if (mirror && mirror.metadata.annotations?.[CONFIG_MIRROR] === hash && !mirror.metadata.deletionTimestamp) return;
    if (mirror) {
      try {
        await pods.delete(mirror.metadata.namespace, mirror.metadata.name as string, { gracePeriodSeconds: 0, preconditions: { uid: mirror.metadata.uid as string } });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
    }
    const node = this.nodes.lister.get(undefined, this.nodeName) ?? this.agent?.nodeObject;
    if (!node) return;
    try {
      await pods.create(pod.metadata.namespace, mirrorPodFor(pod, node));
      this.log.info('created mirror pod', { pod: `${pod.metadata.namespace}/${pod.metadata.name}` });
    } catch (e) {
      // The old one is still going away: the next sync (its delete event) tries again.
      if (!isAlreadyExists(e)) throw e;
    }
  }

  /** A removed static pod's mirror goes with it (only the mirror of that very manifest). */
  private async deleteMirror(pod: Pod): Promise<void> {
    const mirror = this.informer.lister.get(pod.metadata.namespace, pod.metadata.name as string);
    if (!mirror || mirror.metadata.annotations?.[CONFIG_MIRROR] !== pod.metadata.annotations?.[CONFIG_HASH]) return;
    try {
      await this.o.clients.resource(resources.pods).delete(mirror.metadata.namespace, mirror.metadata.name as string, { gracePeriodSeconds: 0, preconditions: { uid: mirror.metadata.uid as string } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  private async syncOne(uid: string) {
    let mem = this.memory.get(uid);
    if (!mem) {
      mem = { waiting: new Map() };
      this.memory.set(uid, mem);
    }
    const seen = this.known.get(uid);
    const found = seen ? this.informer.lister.get(seen.metadata.namespace, seen.metadata.name as string) : undefined;
    let pod = found && found.metadata.uid === uid ? found : undefined;
    const staticPod = this.staticPods.get(uid);
    if (staticPod) {
      // The kubelet's own status lives on the mirror pod; the spec is the file's.
      const mirror = this.informer.lister.get(staticPod.metadata.namespace, staticPod.metadata.name as string);
      await this.syncMirror(staticPod, mirror && isMirrorPod(mirror) ? mirror : undefined);
      const current = mirror?.metadata.annotations?.[CONFIG_MIRROR] === staticPod.metadata.annotations?.[CONFIG_HASH] ? mirror : undefined;
      pod = { ...staticPod, status: current?.status ?? staticPod.status };
    }
    if (pod && !pod.metadata.deletionTimestamp && !(await this.admit(pod))) return {};
    // Hard eviction kills at once, node shutdown within its group's time, whatever the pod's own grace period.
    const override = this.graceOverride.get(uid);
    if (pod && override !== undefined) pod = { ...pod, spec: { ...pod.spec!, terminationGracePeriodSeconds: override } };
    const result = await this.syncer.sync(uid, pod, mem);
    if (result.done) {
      const gone = this.staticGone.get(uid);
      if (gone) {
        await this.deleteMirror(gone);
        this.staticGone.delete(uid);
      }
      this.tokens.deleteServiceAccountToken(uid);
      this.memory.delete(uid);
      this.known.delete(uid);
      this.admitted.delete(uid);
      this.evicted.delete(uid);
      this.graceOverride.delete(uid);
    }
    return result;
  }

  /** Pods that count against the node: admitted here, or started by an earlier kubelet, and not finished. */
  private activePods(except: string): Pod[] {
    return [...this.informer.lister.list().filter((p) => !isMirrorPod(p)), ...this.staticPods.values()].filter((p) => {
      const uid = p.metadata.uid as string;
      const phase = p.status?.phase;
      return uid !== except && phase !== 'Succeeded' && phase !== 'Failed' && (this.admitted.has(uid) || !!p.status?.startTime);
    });
  }

  /** Admission (once per pod): true when the pod may run. A rejected pod is marked Failed
   *  with the reason, as upstream's rejectPod; one that never ran and is Failed stays so. */
  private async admit(pod: Pod): Promise<boolean> {
    const uid = pod.metadata.uid as string;
    if (this.admitted.has(uid)) return true;
    const phase = pod.status?.phase;
    const started = !!pod.status?.startTime;
    if (!started && (phase === 'Failed' || phase === 'Succeeded')) return false;
    // The informer's first list notifies pod by pod: judge against all of them, not the first few.
    if (!this.informer.hasSynced()) await this.informer.waitForSync();
    const node = this.nodes.lister.get(undefined, this.nodeName) ?? this.agent?.nodeObject;
    // Decided and recorded without awaiting, so two new pods never both take the last room.
    const verdict = this.shutdownManager.status() && !started
      ? { admit: false as const, reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE }
      : started || !node ? { admit: true as const } : admitPod(pod, node, this.activePods(uid));
    if (verdict.admit) {
      this.admitted.add(uid);
      return true;
    }
    this.log.info('pod rejected', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, reason: verdict.reason, message: verdict.message });
    this.recorder.event(pod, 'Warning', verdict.reason, verdict.message);
    await this.o.clients.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name as string, 'merge', {
      status: { phase: 'Failed', reason: verdict.reason, message: `Pod was rejected: ${verdict.message}`, qosClass: qosClass(pod) },
    }, 'status');
    return false;
  }

  /** Registers the node, starts heartbeats, the pod informer, workers and housekeeping. */
  async start(): Promise<void> {
    const version = await this.runtimeVersion();
    const machine = this.o.machine ?? await machineInfo(this.o.rootDir);
    this.settings.allocatable = { cpu: machine.cpu, memory: machine.memoryBytes };
    this.agent = new NodeAgent({
      nodeName: this.o.nodeName, nodeIP: this.settings.nodeIP, clients: this.o.clients,
      runtime: this.o.healthRuntime ?? this.o.runtime, clock: this.clock, log: this.log, machine,
      pressure: this.o.pressure ?? (() => pressureSample(this.o.rootDir)),
      runtimeVersion: `${version.runtime_name}://${version.runtime_version}`,
      maxPods: this.o.maxPods, intervalMs: this.o.nodeStatusIntervalMs, kubeletPort: this.o.kubeletPort, localPathDir: join(this.o.rootDir, 'local-path'),
      evictionHard: this.o.evictionSoft?.length ? [...(this.o.evictionHard ?? parseThresholds(DEFAULT_EVICTION_HARD)), ...this.o.evictionSoft] : this.o.evictionHard,
      shutdownStatus: () => this.shutdownManager.status(),
      onPodCIDR: async (cidr) => {
        this.log.info('node podCIDR', { podCIDR: cidr });
        if (this.o.cniConfDir && writePtpConfig(this.o.cniConfDir, cidr, join(this.o.rootDir, 'cni', 'ipam'))) {
          this.log.info('wrote ptp CNI config', { dir: this.o.cniConfDir, podCIDR: cidr });
        }
        await this.o.runtime.updateRuntimeConfig(cidr).catch((e) => this.log.warn('UpdateRuntimeConfig failed', { error: (e as Error).message }));
      },
    });
    await this.agent.register();
    this.agent.start();
    // Containers start only once the Services were read (upstream: "services have not yet
    // been read at least once, cannot construct envvars").
    this.services.start();
    this.nodes.start();
    await this.nodes.waitForSync();
    this.informer.start();
    await Promise.all([this.services.waitForSync(), this.informer.waitForSync()]);
    if (this.o.eventsSocket) {
      this.events = new ContainerEvents({
        socket: this.o.eventsSocket, reader: this.reader, clock: this.clock, log: this.log,
        wake: (uid) => this.workers.enqueue(uid),
        wakeAll: () => { for (const uid of this.workers.uids()) this.workers.enqueue(uid); },
      });
      this.events.start();
    }
    if (this.o.podManifestPath) {
      this.staticSource = new StaticPodSource({
        dir: this.o.podManifestPath, nodeName: this.nodeName, clock: this.clock, log: this.log, periodMs: this.o.fileCheckFrequencyMs,
        onPods: (pods) => this.setStaticPods(pods),
      });
      this.staticSource.start();
    }
    await this.housekeeping();
    await this.imageGC.start();
    this.scheduleImageGC();
    this.evictionTimer = this.clock.setTimeout(() => void this.checkEviction(), this.o.evictionIntervalMs ?? 10_000);
  }

  /**
   * The runtime's version, waited for (up to RUNTIME_WAIT_MS): containerd may come up after the
   * kubelet on a boot, and a kubelet still loading on a slow (emulated) VM can miss the call's
   * deadline. Exiting would only have systemd start the whole process again.
   */
  private async runtimeVersion(): Promise<Awaited<ReturnType<CRIRuntime['version']>>> {
    const deadline = this.clock.now() + RUNTIME_WAIT_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.o.runtime.version();
      } catch (e) {
        if (this.stopped || !(isUnavailable(e) || isDeadlineExceeded(e)) || this.clock.now() >= deadline) throw e;
        const retryInMs = Math.min(500 * 2 ** attempt, 10_000);
        this.log.warn('waiting for the container runtime', { error: (e as Error).message, attempt, retryInMs });
        await new Promise((r) => this.clock.setTimeout(() => r(undefined), retryInMs));
      }
    }
  }

  private scheduleImageGC(): void {
    this.imageGCTimer = this.clock.setTimeout(() => {
      this.imageGCPass = this.imageGC.run().then(() => {
        if (!this.stopped) this.scheduleImageGC();
      });
    }, this.o.imageGCPeriodMs ?? 300_000);
  }

  /** One eviction round: while a hard threshold is crossed (or a soft one for its grace period), the first pod in eviction order goes. */
  async checkEviction(): Promise<void> {
    try {
      const sample = await (this.o.pressure ?? (() => pressureSample(this.o.rootDir)))();
      const thresholds = [...(this.o.evictionHard ?? parseThresholds(DEFAULT_EVICTION_HARD)), ...(this.o.evictionSoft ?? [])];
      const met = this.thresholds.met(crossedThresholds(thresholds, sample), this.clock.now());
      const crossing = met.find((c) => c.threshold.gracePeriodMs === undefined) ?? met[0];
      if (crossing) {
        // Static pods are the node's own (upstream treats them as critical); mirrors are not pods here.
        const candidates = this.activePods('').filter((p) => !this.evicted.has(p.metadata.uid as string) && !this.staticPods.has(p.metadata.uid as string));
        const stats = crossing.resource === 'memory' ? await this.memoryStats() : undefined;
        const [victim] = rankForEviction(candidates, stats && new Map(stats.map((p) => [p.podRef.uid, p.memory?.workingSetBytes ?? 0])));
        if (victim) {
          const message = evictionMessage(crossing, containerUsage(victim, stats?.find((p) => p.podRef.uid === victim.metadata.uid)));
          await this.evict(victim, message, evictionGrace(victim, crossing.threshold, this.o.evictionMaxPodGracePeriodSeconds ?? 0));
        }
      }
    } catch (e) {
      this.log.warn('eviction check failed', { error: (e as Error).message });
    }
    if (!this.stopped) this.evictionTimer = this.clock.setTimeout(() => void this.checkEviction(), this.o.evictionIntervalMs ?? 10_000);
  }

  /** Pods' memory for ranking; without it (stats failing) the order falls back to QoS and priority. */
  private async memoryStats(): Promise<PodStats[] | undefined> {
    try {
      return await (this.o.podStats ?? (() => podStats(this.o.runtime)))();
    } catch (e) {
      this.log.warn('pod stats for eviction ranking failed', { error: (e as Error).message });
      return undefined;
    }
  }

  private async evict(pod: Pod, message: string, graceSeconds: number): Promise<void> {
    this.log.info('evicting pod', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, message, gracePeriod: graceSeconds });
    this.evicted.add(pod.metadata.uid as string);
    this.recorder.event(pod, 'Warning', 'Evicted', message);
    await this.terminateByKubelet(pod, graceSeconds, 'Evicted', message);
  }

  /** Marks the pod Failed with the reason and a DisruptionTarget condition, and has its
   *  worker stop it within `graceSeconds` (as upstream's killPodFunc with a status function). */
  private async terminateByKubelet(pod: Pod, graceSeconds: number, reason: string, message: string): Promise<void> {
    const uid = pod.metadata.uid as string;
    this.graceOverride.set(uid, graceSeconds);
    const now = rfc3339(new Date(this.clock.now()));
    const conditions = [
      ...(pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'),
      { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message, lastProbeTime: null, lastTransitionTime: now },
    ];
    await this.o.clients.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name as string, 'merge', {
      status: { phase: pod.status?.phase === 'Succeeded' ? 'Succeeded' : 'Failed', reason, message, conditions },
    }, 'status');
    this.workers.enqueue(uid);
  }

  /** Node shutdown's kill: resolves once none of the pod's containers runs. */
  private async killForShutdown(pod: Pod, graceSeconds: number): Promise<void> {
    const uid = pod.metadata.uid as string;
    this.log.info('shutdown manager killing pod', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, gracePeriod: graceSeconds });
    await this.terminateByKubelet(pod, graceSeconds, NODE_SHUTDOWN_REASON, NODE_SHUTDOWN_MESSAGE);
    for (;;) {
      const rs = await this.reader.read(uid);
      if (!rs.containers.some((c) => c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED')) return;
      await new Promise((r) => this.clock.setTimeout(() => r(undefined), 200));
    }
  }

  /** Graceful node shutdown (when configured): every pod stopped, regular before critical. */
  async shutdownNode(): Promise<void> {
    await this.shutdownManager.shutdown();
  }

  /** Runtime pods the API no longer has go to a worker, which removes them. */
  async housekeeping(): Promise<void> {
    try {
      for (const ref of await this.reader.pods()) {
        if (!this.known.has(ref.uid) && !this.staticPods.has(ref.uid) && !this.workers.has(ref.uid)) this.workers.enqueue(ref.uid);
      }
    } catch (e) {
      this.log.warn('housekeeping failed', { error: (e as Error).message });
    }
    if (!this.stopped) this.housekeepingTimer = this.clock.setTimeout(() => void this.housekeeping(), this.o.housekeepingMs ?? 10_000);
  }

  /** Stops watching and syncing; containers keep running (a restarted kubelet adopts them). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.housekeepingTimer !== undefined) this.clock.clearTimeout(this.housekeepingTimer);
    if (this.imageGCTimer !== undefined) this.clock.clearTimeout(this.imageGCTimer);
    if (this.evictionTimer !== undefined) this.clock.clearTimeout(this.evictionTimer);
    await this.agent?.stop();
    this.staticSource?.stop();
    this.events?.stop();
    await this.informer.stop();
    await this.services.stop();
    await this.nodes.stop();
    await this.workers.stop();
    for (const uid of this.known.keys()) this.probes.removePod(uid);
    this.tokens.stop();
  }
}

/** Each container's memory usage against its request, for the eviction message. */
function containerUsage(pod: Pod, stats: PodStats | undefined): ContainerUsage[] {
  return (pod.spec?.containers ?? []).map((c) => ({
    name: c.name,
    usageBytes: stats?.containers.find((x) => x.name === c.name)?.memory?.workingSetBytes ?? 0,
    requestBytes: c.resources?.requests?.memory !== undefined ? value(String(c.resources.requests.memory)) : 0,
  }));
}
