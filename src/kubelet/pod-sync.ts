// One level-based sync of one pod: compare the pod's spec with what the runtime holds for
// its uid and take the next steps (sandbox, volumes, init containers in order, containers,
// kills for failed liveness or changed specs, restarts under restartPolicy with backoff),
// then report status. Called only by the pod's worker, so never concurrently for one pod;
// everything it needs to know survives a kubelet restart in CRI labels and annotations.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, type CRIRuntime } from '../../cri/index.js';
import { isNotFound as apiNotFound, isConflict, type Clock, type ClientsetAPI, type EventRecorder } from '../client/index.js';
import { resources } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { fallbacks, type Fallbacks } from '../log/fallback.js';
import { formatSeconds, stableStringify } from '../util/index.js';
import { Backoff } from './backoff.js';
import { containerConfig } from './container-config.js';
import { ConfigError, containerEnv, type ObjectSource, type PodRuntimeFacts } from './env.js';
import { writeHostsFile } from './hosts.js';
import type { ImageManager } from './images.js';
import { podLogDirectory } from './labels.js';
import { killContainer, runPostStart, type LifecycleDeps } from './lifecycle.js';
import {
  containerHash, containersOf, ephemeralContainersOf, gracePeriodSeconds, initContainersOf, podCgroupParent, podDescription, restartPolicyOf, shouldRestart,
} from './pod-spec.js';
import type { ProbeManager } from './probe-manager.js';
import type { ProbeRunner } from './prober.js';
import { latestByName, type ContainerState, type PodRuntimeState, type RuntimeStateReader, type SandboxState } from './runtime-state.js';
import { sandboxConfig, type SandboxSettings } from './sandbox-config.js';
import { computePodStatus, type Waiting } from './status.js';
import { MountError, removePodDir, setUpVolumes, type TokenSource } from './volumes.js';
import { Semaphore } from './semaphore.js';
import { podCgroupResources, type CgroupResources } from './pod-cgroups.js';
import { createTerminationMessageFile, terminationMessage, terminationMessageFile } from './termination-message.js';
import type { Pod, Service } from '../api/kinds.js';
import { serviceEnvVars, servicesForPod } from './service-env.js';
import type { Container, PodStatus } from 'kubernetes-types/core/v1.js';

export interface SyncSettings extends SandboxSettings {
  rootDir: string;
  nodeName: string;
  nodeIP: string;
  runtimeName: string;
  allocatable: { cpu: number; memory: number };
  /** Exited instances kept per container (the newest is needed for restartCount/lastState). */
  maxDeadPerContainer: number;
  /** Pod starts (sandbox + first containers) in flight at once; 0 = no limit. */
  parallelPodStarts?: number;
}

export interface SyncDeps {
  runtime: CRIRuntime;
  reader: RuntimeStateReader;
  probes: ProbeManager;
  runner: ProbeRunner;
  images: ImageManager;
  clients: ClientsetAPI;
  objects: ObjectSource;
  /** The Services of a namespace and the `kubernetes` Service, for the containers' Service variables. */
  services?: (namespace: string) => Service[];
  /** Service account tokens for serviceAccountToken projections. */
  tokens?: TokenSource;
  recorder?: EventRecorder;
  clock: Clock;
  log: Logger;
  settings: SyncSettings;
  removeCgroup(path: string): void;
  /** Creates the pod's cgroup with the pod's limits before its sandbox starts. */
  ensureCgroup(path: string, resources: CgroupResources): void | Promise<void>;
}

/** What the kubelet remembers about a pod between syncs (all of it may be lost on restart). */
export interface PodMemory {
  waiting: Map<string, Waiting>;
  lastStatus?: string;
  /** The last spec seen, to terminate with its grace period after the pod vanished. */
  lastPod?: Pod;
  /** Termination messages of exited containers by id. */
  messages?: Map<string, string>;
  /** What this kubelet last wrote to the pod's hosts file. */
  hostsFile?: string;
  /** The pod's status writes, one after another (the last one queued settles last). */
  statusWrites?: Promise<void>;
}

export interface SyncResult {
  /** Sync again after this long (backoff expiry, mount retry); undefined = the default resync. */
  requeueAfterMs?: number;
  /** The pod is gone from the node and the API: forget it. */
  done?: boolean;
}

const SANDBOX_RETRY_MS = 5_000;

export class PodSyncer {
  readonly backoff: Backoff;
  private lifecycle: LifecycleDeps;

  // containerd shares the CPU between concurrent sandbox starts, so 50 at once all finish
  // late; a bound lets the first pods finish early without slowing the last.
  private starts?: Semaphore;
  private readonly fallback: Fallbacks;

  constructor(private d: SyncDeps) {
    this.backoff = new Backoff(() => d.clock.now());
    this.fallback = fallbacks('kubelet', d.log);
    if (d.settings.parallelPodStarts) this.starts = new Semaphore(d.settings.parallelPodStarts);
    this.lifecycle = { runtime: d.runtime, runner: d.runner, recorder: d.recorder, clock: d.clock };
  }

  async sync(uid: string, pod: Pod | undefined, mem: PodMemory): Promise<SyncResult> {
    const rs = await this.d.reader.read(uid);
    if (!pod) return this.cleanUp(uid, rs, mem);
    mem.lastPod = pod;
    if (pod.metadata.deletionTimestamp) return this.terminate(pod, rs, mem);

    const status = () => computePodStatus(this.statusInput(pod, rs, mem));
    const phase = status().phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // The last exit is reported before the sandbox stops, which takes a while.
      this.postEarly(pod, status(), mem);
      await this.stopAll(pod, rs, 'PodCompleted');
      await this.writeStatus(pod, computePodStatus(this.statusInput(pod, await this.d.reader.read(uid), mem)), mem);
      return {};
    }

    // Sandbox.
    const sandbox = rs.sandboxes.find((s) => s.ready);
    for (const extra of rs.sandboxes.filter((s) => s.ready && s !== sandbox)) await this.stopSandbox(pod, rs, extra);
    let volumes: Map<string, string>;
    try {
      volumes = await setUpVolumes({
        root: this.d.settings.rootDir, pod, objects: this.d.objects, tokens: this.d.tokens,
        facts: { nodeName: this.d.settings.nodeName, allocatable: this.d.settings.allocatable },
      });
    } catch (e) {
      if (!(e instanceof MountError)) throw e;
      this.d.recorder?.event(pod, 'Warning', 'FailedMount', e.event ?? `MountVolume.SetUp failed for volume "${e.volume}" : ${e.message}`);
      await this.writeStatus(pod, status(), mem);
      return { requeueAfterMs: SANDBOX_RETRY_MS };
    }
    if (!sandbox && !(await this.prepareSandbox(pod))) {
      await this.writeStatus(pod, status(), mem);
      return { requeueAfterMs: SANDBOX_RETRY_MS };
    }
    if (!sandbox && this.starts) {
      // The bound covers the start itself (sandbox through the first containers' starts), not
      // the status read and write after it, which the next pods need not wait for.
      const release = await this.starts.acquire();
      try {
        return await this.syncInSandbox(uid, pod, mem, rs, volumes, release);
      } finally {
        release();
      }
    }
    return this.syncInSandbox(uid, pod, mem, rs, volumes);
  }

  private async syncInSandbox(
    uid: string, pod: Pod, mem: PodMemory, rs: PodRuntimeState, volumes: Map<string, string>, started: () => void = () => undefined,
  ): Promise<SyncResult> {
    const waits: number[] = [];
    const status = () => computePodStatus(this.statusInput(pod, rs, mem));
    let sandbox = rs.sandboxes.find((s) => s.ready);
    if (!sandbox) {
      const inits = initContainersOf(pod);
      this.d.images.lookAhead(pod, inits.length ? inits.slice(0, 1) : containersOf(pod));
      sandbox = await this.createSandbox(pod, rs);
      if (!sandbox) {
        await this.writeStatus(pod, status(), mem);
        return { requeueAfterMs: SANDBOX_RETRY_MS };
      }
      rs.sandboxes.unshift(sandbox);
    }
    const facts: PodRuntimeFacts = {
      podIP: sandbox.hostNetwork ? this.d.settings.nodeIP : sandbox.ip,
      podIPs: sandbox.hostNetwork ? [this.d.settings.nodeIP] : sandbox.ips,
      hostIP: this.d.settings.nodeIP, nodeName: this.d.settings.nodeName,
    };
    let hostsFile: string | undefined;
    if (!pod.spec?.hostNetwork) {
      // Written once per content (each resync would otherwise rewrite it).
      const hosts = await writeHostsFile(this.d.settings.rootDir, pod, facts.podIPs, mem.hostsFile);
      mem.hostsFile = hosts.content;
      hostsFile = hosts.path;
    }
    const ctx = { pod, rs, sandbox, volumes, facts, hostsFile, mem, waits };
    // What changed since the last write (typically an exit) is reported before the restarts
    // and kills below, as upstream's status manager does; the final write follows it.
    this.postEarly(pod, status(), mem);

    // Running containers that must go: failed liveness/startup probe, or a changed spec.
    let killed = false;
    for (const [specs, init] of [[initContainersOf(pod), true], [containersOf(pod), false]] as [Container[], boolean][]) {
      for (const spec of specs) {
        const c = latestByName(rs, init).get(spec.name);
        if (!c || c.state !== 'CONTAINER_RUNNING' || c.sandboxId !== sandbox.id) continue;
        const failed = this.d.probes.failed(c.id, spec);
        let message: string | undefined;
        let grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
        if (failed) {
          message = `Container ${spec.name} failed ${failed.toLowerCase()} probe, will be restarted`;
          grace = this.d.probes.probeGrace(spec, failed) ?? grace;
        } else if (c.hash && c.hash !== containerHash(spec)) message = `Container ${spec.name} definition changed, will be restarted`;
        if (!message) continue;
        await killContainer(this.lifecycle, pod, c, spec, grace, message, facts.podIP);
        killed = true;
      }
    }
    if (killed) return { requeueAfterMs: 0 };

    // Init containers, one at a time, in order; each must exit 0.
    let initDone = true;
    for (const spec of initContainersOf(pod)) {
      const c = latestByName(rs, true).get(spec.name);
      const here = c && c.sandboxId === sandbox.id ? c : undefined;
      if (here?.state === 'CONTAINER_EXITED' && here.exitCode === 0) continue;
      initDone = false;
      if (here?.state === 'CONTAINER_RUNNING') break;
      if (here?.state === 'CONTAINER_CREATED') {
        await this.start(ctx, spec, here.id);
        break;
      }
      if (here?.state === 'CONTAINER_EXITED' && restartPolicyOf(pod) === 'Never') break; // the pod failed
      await this.runContainer(ctx, spec, true, c);
      break;
    }

    if (initDone) {
      for (const spec of containersOf(pod)) {
        const c = latestByName(rs, false).get(spec.name);
        if (c && c.sandboxId === sandbox.id) {
          if (c.state === 'CONTAINER_RUNNING') continue;
          if (c.state === 'CONTAINER_CREATED') {
            await this.start(ctx, spec, c.id);
            continue;
          }
          if (c.state === 'CONTAINER_EXITED' && !shouldRestart(pod, c.exitCode)) continue;
        }
        await this.runContainer(ctx, spec, false, c);
      }
      // Ephemeral containers run once, in the current sandbox, and are never restarted.
      for (const spec of ephemeralContainersOf(pod)) {
        const c = latestByName(rs, false).get(spec.name);
        if (c && c.sandboxId === sandbox.id) {
          if (c.state === 'CONTAINER_CREATED') await this.start(ctx, spec, c.id);
          continue;
        }
        const target = spec.targetContainerName ? latestByName(rs, false).get(spec.targetContainerName) : undefined;
        await this.runContainer(ctx, spec, false, undefined, target?.state === 'CONTAINER_RUNNING' && target.sandboxId === sandbox.id ? target.id : undefined);
      }
    }

    started();
    const after = await this.d.reader.read(uid);
    const current = after.sandboxes.find((s) => s.id === sandbox!.id);
    this.d.probes.sync(uid, after.containers
      .filter((c) => c.sandboxId === sandbox!.id && c.state === 'CONTAINER_RUNNING')
      .flatMap((c) => {
        const spec = (c.init ? initContainersOf(pod) : containersOf(pod)).find((s) => s.name === c.name);
        return spec ? [{ pod, container: spec, containerId: c.id, startedAt: c.startedAt, podIP: current?.hostNetwork ? this.d.settings.nodeIP : current?.ip ?? '' }] : [];
      }));
    await this.collectGarbage(after);
    await this.writeStatus(pod, computePodStatus(this.statusInput(pod, after, mem)), mem);
    const soonest = waits.length ? Math.max(0, Math.min(...waits) - this.d.clock.now()) : undefined;
    return { requeueAfterMs: soonest };
  }

  /** The runtime state with each exited container's termination message read in (once per container: it never changes). */
  private withMessages(pod: Pod, rs: PodRuntimeState, mem: PodMemory): PodRuntimeState {
    const uid = pod.metadata.uid as string;
    const source = { rootDir: this.d.settings.rootDir, podUID: uid, logDir: podLogDirectory(this.d.settings.logRoot, pod.metadata.namespace ?? 'default', pod.metadata.name as string, uid) };
    mem.messages ??= new Map();
    const messages = mem.messages;
    const out = {
      ...rs,
      containers: rs.containers.map((c) => {
        if (c.state !== 'CONTAINER_EXITED') return c;
        let message = messages.get(c.id);
        if (message === undefined) {
          message = terminationMessage(c, source);
          messages.set(c.id, message);
        }
        return message === c.message ? c : { ...c, message };
      }),
    };
    for (const id of messages.keys()) if (!rs.containers.some((c) => c.id === id)) messages.delete(id);
    return out;
  }

  private statusInput(pod: Pod, rs: PodRuntimeState, mem: PodMemory) {
    return {
      pod, runtime: this.withMessages(pod, rs, mem), hostIP: this.d.settings.nodeIP, now: this.d.clock.now(), runtimeName: this.d.settings.runtimeName,
      ready: (id: string, c: Container) => this.d.probes.ready(id, c),
      started: (id: string, c: Container) => this.d.probes.started(id, c),
      waiting: mem.waiting,
    };
  }

  private sandboxSettings(): SandboxSettings {
    return this.d.settings;
  }

  /** What a new sandbox needs that does not wait for the runtime, done before taking a start
   *  slot: the log directory and the pod cgroup. (The first containers' ImageStatus is asked
   *  in the slot, beside RunPodSandbox: asked for every waiting pod at once, those calls
   *  would compete with the first sandboxes' in containerd.) */
  private async prepareSandbox(pod: Pod): Promise<boolean> {
    const config = sandboxConfig(pod, 0, this.sandboxSettings());
    try {
      await mkdir(config.log_directory!, { recursive: true });
      await this.d.ensureCgroup(config.linux!.cgroup_parent!, podCgroupResources(pod));
      return true;
    } catch (e) {
      this.sandboxFailed(pod, e);
      return false;
    }
  }

  private sandboxFailed(pod: Pod, e: unknown): void {
    const msg = (e as { details?: string }).details ?? (e as Error).message;
    this.d.recorder?.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${msg}`);
    this.d.log.warn('sandbox creation failed', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, error: msg });
  }

  private async createSandbox(pod: Pod, rs: PodRuntimeState): Promise<SandboxState | undefined> {
    if (rs.sandboxes.length) {
      this.d.recorder?.event(pod, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
      for (const s of rs.sandboxes) await this.stopSandbox(pod, rs, s);
    }
    const attempt = rs.sandboxes.length ? Math.max(...rs.sandboxes.map((s) => s.attempt)) + 1 : 0;
    const config = sandboxConfig(pod, attempt, this.sandboxSettings());
    try {
      // The log directory and the cgroup were made by sync() before the start slot.
      const id = await this.d.runtime.runPodSandbox(config);
      return await this.d.reader.sandboxStatus(id);
    } catch (e) {
      this.sandboxFailed(pod, e);
      // containerd may leave a NOTREADY sandbox holding the name: the next attempt number differs.
      return undefined;
    }
  }

  private async stopSandbox(pod: Pod, rs: PodRuntimeState, s: SandboxState): Promise<void> {
    const grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
    await Promise.all(rs.containers.filter((c) => c.sandboxId === s.id).map((c) => {
      const spec = [...initContainersOf(pod), ...containersOf(pod)].find((x) => x.name === c.name);
      return killContainer(this.lifecycle, pod, c, spec, grace, `Stopping container ${c.name}`, s.ip);
    }));
    try {
      await this.d.runtime.stopPodSandbox(s.id);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Creates and starts one container instance (attempt = previous restartCount + 1),
   *  honouring the restart backoff. */
  private async runContainer(
    ctx: { pod: Pod; sandbox: SandboxState; volumes: Map<string, string>; facts: PodRuntimeFacts; hostsFile?: string; mem: PodMemory; waits: number[] },
    spec: Container, init: boolean, previous: ContainerState | undefined, targetId?: string,
  ): Promise<void> {
    const { pod, mem } = ctx;
    const key = `${pod.metadata.uid}/${spec.name}`;
    if (previous?.state === 'CONTAINER_EXITED') {
      if (this.backoff.inBackOffSince(key, previous.finishedAt)) {
        const b = this.backoff.get(key);
        mem.waiting.set(spec.name, {
          reason: 'CrashLoopBackOff',
          message: `back-off ${formatSeconds(b)} restarting failed container=${spec.name} pod=${podDescription(pod)}`,
        });
        this.d.recorder?.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${spec.name} in pod ${podDescription(pod)}`);
        ctx.waits.push(previous.finishedAt + b);
        return;
      }
      this.backoff.next(key);
    }
    const restartCount = previous ? previous.restartCount + 1 : 0;
    const messageFile = terminationMessageFile(this.d.settings.rootDir, pod.metadata.uid as string, spec.name, restartCount);
    const sbConfig = sandboxConfig(pod, ctx.sandbox.attempt, this.sandboxSettings());
    // The container's files are made while its image and environment are looked up (each
    // waits on the disk or the runtime, and the pod may hold a start slot meanwhile).
    const files = Promise.all([createTerminationMessageFile(messageFile), mkdir(join(sbConfig.log_directory!, spec.name), { recursive: true })]);
    files.catch(() => undefined);
    const image = await this.d.images.ensure(pod, spec);
    if (!image.ok) {
      mem.waiting.set(spec.name, { reason: image.reason, message: image.message });
      if (image.retryAt !== undefined) ctx.waits.push(image.retryAt);
      return;
    }
    let env;
    try {
      const serviceEnv = serviceEnvVars(servicesForPod(pod, this.d.services?.(pod.metadata.namespace ?? 'default') ?? []));
      env = await containerEnv({ pod, container: spec, facts: ctx.facts, objects: this.d.objects, allocatable: this.d.settings.allocatable, serviceEnv });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      mem.waiting.set(spec.name, { reason: 'CreateContainerConfigError', message: e.message });
      this.d.recorder?.event(pod, 'Warning', 'Failed', `Error: ${e.message}`);
      ctx.waits.push(this.d.clock.now() + SANDBOX_RETRY_MS);
      return;
    }
    let id: string;
    try {
      await files;
      const config = containerConfig({
        pod, container: spec, init, restartCount, env, volumes: ctx.volumes, hostsFile: ctx.hostsFile, image: image.imageRef, terminationMessageFile: messageFile, targetId,
      });
      id = await this.d.runtime.createContainer(ctx.sandbox.id, config, sbConfig);
    } catch (e) {
      const msg = (e as { details?: string }).details ?? (e as Error).message;
      mem.waiting.set(spec.name, { reason: e instanceof MountError ? 'CreateContainerConfigError' : 'CreateContainerError', message: msg });
      this.d.recorder?.event(pod, 'Warning', 'Failed', `Error: ${msg}`);
      ctx.waits.push(this.d.clock.now() + SANDBOX_RETRY_MS);
      return;
    }
    this.d.recorder?.event(pod, 'Normal', 'Created', `Created container ${spec.name}`);
    await this.start(ctx, spec, id);
  }

  private async start(ctx: { pod: Pod; facts: PodRuntimeFacts; mem: PodMemory; waits: number[] }, spec: Container, id: string): Promise<void> {
    try {
      await this.d.runtime.startContainer(id);
    } catch (e) {
      const msg = (e as { details?: string }).details ?? (e as Error).message;
      ctx.mem.waiting.set(spec.name, { reason: 'RunContainerError', message: msg });
      this.d.recorder?.event(ctx.pod, 'Warning', 'Failed', `Error: ${msg}`);
      ctx.waits.push(this.d.clock.now() + SANDBOX_RETRY_MS);
      return;
    }
    ctx.mem.waiting.delete(spec.name);
    this.d.recorder?.event(ctx.pod, 'Normal', 'Started', `Started container ${spec.name}`);
    // killContainer reads only the id and the state of what it stops.
    const started = { id, name: spec.name, state: 'CONTAINER_RUNNING' } as ContainerState;
    const failed = await runPostStart(this.lifecycle, ctx.pod, started, spec, ctx.facts.podIP);
    // Shown until the restart; a container that will not restart shows how it ended.
    if (failed && shouldRestart(ctx.pod, 137)) ctx.mem.waiting.set(spec.name, failed);
  }

  /** Stops every container and the sandboxes (a pod that finished). */
  private async stopAll(pod: Pod, rs: PodRuntimeState, _why: string): Promise<void> {
    this.d.probes.removePod(pod.metadata.uid as string);
    for (const s of rs.sandboxes) {
      const live = rs.containers.some((c) => c.sandboxId === s.id && c.state === 'CONTAINER_RUNNING');
      if (s.ready || live) await this.stopSandbox(pod, rs, s);
    }
  }

  /** Graceful deletion: stop containers within the grace period, report their final
   *  state, remove sandboxes and the pod's node state, then delete the pod (grace 0). */
  private async terminate(pod: Pod, rs: PodRuntimeState, mem: PodMemory): Promise<SyncResult> {
    const uid = pod.metadata.uid as string;
    const grace = gracePeriodSeconds(pod);
    this.d.probes.removePod(uid);
    const specs = [...initContainersOf(pod), ...containersOf(pod)];
    const ip = rs.sandboxes.find((s) => s.ready)?.ip ?? '';
    await Promise.all(rs.containers.map((c) => killContainer(
      this.lifecycle, pod, c, specs.find((s) => s.name === c.name), grace, `Stopping container ${c.name}`, ip)));
    mem.waiting.clear();
    const final = await this.d.reader.read(uid);
    await this.writeStatus(pod, computePodStatus(this.statusInput(pod, final, mem)), mem).catch((e: unknown) => this.fallback('final-status-write-failed', { error: e, pod: `${pod.metadata.namespace}/${pod.metadata.name}` }));
    await this.removeEverything(pod, final);
    try {
      await this.d.clients.resource(resources.pods).delete(pod.metadata.namespace, pod.metadata.name as string, {
        gracePeriodSeconds: 0, preconditions: { uid },
      });
    } catch (e) {
      if (!apiNotFound(e) && !isConflict(e)) throw e;
    }
    return { done: true };
  }

  /** The pod is gone from the API (or never was): whatever the runtime holds for it goes. */
  private async cleanUp(uid: string, rs: PodRuntimeState, mem: PodMemory): Promise<SyncResult> {
    this.d.probes.removePod(uid);
    const pod: Pod = mem.lastPod ?? { metadata: { uid, name: '', namespace: '' }, spec: { terminationGracePeriodSeconds: 0, containers: [] } };
    const specs = [...initContainersOf(pod), ...containersOf(pod)];
    const grace = mem.lastPod ? gracePeriodSeconds(pod) : 0;
    await Promise.all(rs.containers.map((c) => killContainer(
      { ...this.lifecycle, recorder: mem.lastPod ? this.lifecycle.recorder : undefined }, pod, c, specs.find((s) => s.name === c.name), grace, `Stopping container ${c.name}`, '')));
    await this.removeEverything(pod, rs);
    return { done: true };
  }

  private async removeEverything(pod: Pod, rs: PodRuntimeState): Promise<void> {
    const uid = pod.metadata.uid as string;
    for (const s of rs.sandboxes) {
      try {
        await this.d.runtime.stopPodSandbox(s.id);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      await this.d.runtime.removePodSandbox(s.id);
    }
    for (const c of rs.containers) await this.d.runtime.removeContainer(c.id);
    this.d.reader.forget([...rs.sandboxes.map((s) => s.id), ...rs.containers.map((c) => c.id)]);
    this.backoff.forgetPrefix(`${uid}/`);
    this.d.images.forgetPod(uid);
    if (pod.spec) this.d.removeCgroup(podCgroupParent(this.d.settings.cgroupRoot, pod));
    await removePodDir(this.d.settings.rootDir, uid);
    if (pod.metadata.name) await rm(podLogDirectory(this.d.settings.logRoot, pod.metadata.namespace ?? 'default', pod.metadata.name as string, uid), { recursive: true, force: true });
  }

  /** Dead containers beyond the newest few per container, and stopped sandboxes that
   *  are not the newest and hold no containers. */
  private async collectGarbage(rs: PodRuntimeState): Promise<void> {
    const seen = new Map<string, number>();
    const removed: string[] = [];
    for (const c of rs.containers) {
      const k = `${c.init}/${c.name}`;
      const n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      if (n > this.d.settings.maxDeadPerContainer && c.state === 'CONTAINER_EXITED') {
        await this.d.runtime.removeContainer(c.id);
        removed.push(c.id);
      }
    }
    const left = rs.containers.filter((c) => !removed.includes(c.id));
    for (const s of rs.sandboxes.slice(1)) {
      if (s.ready || left.some((c) => c.sandboxId === s.id)) continue;
      await this.d.runtime.removePodSandbox(s.id);
      removed.push(s.id);
    }
    this.d.reader.forget(removed);
  }

  /** Queues a status write without waiting for it, for a pod this kubelet has written before
   *  (a new pod's first status waits for its start). A failure is left to the sync's final write. */
  private postEarly(pod: Pod, status: PodStatus, mem: PodMemory): void {
    if (mem.lastStatus === undefined) return;
    this.writeStatus(pod, status, mem).catch((e: unknown) => this.d.log.warn('status write failed', { pod: podDescription(pod), error: (e as Error).message }));
  }

  /** Writes `status` after the pod's writes queued before it, unless it is what was last written. */
  private writeStatus(pod: Pod, status: PodStatus, mem: PodMemory): Promise<void> {
    const write = (mem.statusWrites ?? Promise.resolve()).catch(() => undefined).then(() => this.patchStatus(pod, status, mem));
    mem.statusWrites = write;
    return write;
  }

  private async patchStatus(pod: Pod, status: PodStatus, mem: PodMemory): Promise<void> {
    const text = stableStringify(status);
    if (text === mem.lastStatus) return;
    try {
      await this.d.clients.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name as string, 'merge', { status }, 'status');
      mem.lastStatus = text;
    } catch (e) {
      if (!apiNotFound(e)) throw e;
    }
  }
}
