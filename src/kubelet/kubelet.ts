// The kubelet: registers the Node and keeps it alive, watches the pods bound to it, and
// runs one serialised worker per pod over CRI. Housekeeping finds runtime pods the API no
// longer has (deleted while the kubelet was away) and hands them to workers to remove.
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Registry } from 'prom-client';
import type { CRIRuntime } from '../../cri/index.js';
import {
  EventRecorder, SharedInformer, isNotFound, realClock, resources, type Clock, type ClientsetAPI, type ResourceType,
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
import { RuntimeStateReader } from './runtime-state.js';
import { TokenManager, type RequestToken } from './token-manager.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { Pod, Service } from '../api/kinds.js';
import type { ObjectBase } from '../api/object.js';

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
  maxPods?: number;
  kubeletPort?: number;
  /** Pods whose sandbox is being created at once (default 4; 0 = unbounded). */
  parallelPodStarts?: number;
  /** Write a ptp + host-local CNI config for the node's podCIDR into this dir when it has none. */
  cniConfDir?: string;
  /** A service account token older than this is refreshed whatever its expiry (upstream's
   *  fixed 24 h; tests shorten it to see a refresh). */
  tokenMaxTTLMs?: number;
  /** Where the kubelet's metrics go (kubelet_pod_worker_duration_seconds …); default its own. */
  registry?: Registry;
  /** Image GC thresholds and minimum age (upstream's defaults 85/80 %, 2 min). */
  imageGC?: Partial<ImageGCPolicy>;
  /** How often image GC runs (upstream's ImageGCPeriod, 5 min). */
  imageGCPeriodMs?: number;
  /** The runtime's sandbox image, which image GC keeps. */
  podInfraImage?: string;
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
  readonly recorder: EventRecorder;
  readonly settings: SyncSettings;
  readonly tokens: TokenManager;
  readonly imageGC: ImageGCManager;
  agent?: NodeAgent;
  /** The kubelet's metrics, for /metrics. */
  readonly registry: Registry;
  private memory = new Map<string, PodMemory>();
  private known = new Map<string, Pod>();
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
    this.reader = new RuntimeStateReader(o.runtime);
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
      runtime: o.runtime, reader: this.reader, probes: this.probes, runner,
      images: new ImageManager(o.runtime, this.recorder, () => this.clock.now(), objects.secret),
      clients: o.clients, objects, services: (ns) => [this.services.lister.get('default', 'kubernetes'), ...this.services.lister.list(ns)].filter((x): x is Service => !!x), tokens: this.tokens, recorder: this.recorder, clock: this.clock, log: this.log,
      removeCgroup: o.removeCgroup ?? ((p) => { removeCgroup(p); }),
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
    this.informer.addEventHandler({
      onAdd: (p) => this.observe(p),
      onUpdate: (old, p) => this.observe(p, !sameDesiredState(old, p)),
      onDelete: (p) => {
        const uid = p.metadata.uid as string;
        this.known.delete(uid);
        this.workers.enqueue(uid);
      },
    });
  }

  private observe(p: Pod, changed = false): void {
    const uid = p.metadata.uid as string;
    this.known.set(uid, p);
    this.workers.enqueue(uid, 0, changed);
  }

  private async syncOne(uid: string) {
    let mem = this.memory.get(uid);
    if (!mem) {
      mem = { waiting: new Map() };
      this.memory.set(uid, mem);
    }
    const seen = this.known.get(uid);
    const pod = seen ? this.informer.lister.get(seen.metadata.namespace, seen.metadata.name as string) : undefined;
    const result = await this.syncer.sync(uid, pod && pod.metadata.uid === uid ? pod : undefined, mem);
    if (result.done) {
      this.tokens.deleteServiceAccountToken(uid);
      this.memory.delete(uid);
      this.known.delete(uid);
    }
    return result;
  }

  /** Registers the node, starts heartbeats, the pod informer, workers and housekeeping. */
  async start(): Promise<void> {
    const version = await this.o.runtime.version();
    const machine = this.o.machine ?? await machineInfo(this.o.rootDir);
    this.settings.allocatable = { cpu: machine.cpu, memory: machine.memoryBytes };
    this.agent = new NodeAgent({
      nodeName: this.o.nodeName, nodeIP: this.settings.nodeIP, clients: this.o.clients,
      runtime: this.o.healthRuntime ?? this.o.runtime, clock: this.clock, log: this.log, machine,
      pressure: this.o.pressure ?? (() => pressureSample(this.o.rootDir)),
      runtimeVersion: `${version.runtime_name}://${version.runtime_version}`,
      maxPods: this.o.maxPods, intervalMs: this.o.nodeStatusIntervalMs, kubeletPort: this.o.kubeletPort, localPathDir: join(this.o.rootDir, 'local-path'),
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
    this.informer.start();
    await Promise.all([this.services.waitForSync(), this.informer.waitForSync()]);
    await this.housekeeping();
    await this.imageGC.start();
    this.scheduleImageGC();
  }

  private scheduleImageGC(): void {
    this.imageGCTimer = this.clock.setTimeout(() => {
      this.imageGCPass = this.imageGC.run().then(() => {
        if (!this.stopped) this.scheduleImageGC();
      });
    }, this.o.imageGCPeriodMs ?? 300_000);
  }

  /** Runtime pods the API no longer has go to a worker, which removes them. */
  async housekeeping(): Promise<void> {
    try {
      for (const ref of await this.reader.pods()) {
        if (!this.known.has(ref.uid) && !this.workers.has(ref.uid)) this.workers.enqueue(ref.uid);
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
    await this.agent?.stop();
    await this.informer.stop();
    await this.services.stop();
    await this.workers.stop();
    for (const uid of this.known.keys()) this.probes.removePod(uid);
    this.tokens.stop();
  }
}
