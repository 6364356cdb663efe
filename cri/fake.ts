// An in-memory CRI runtime for kubelet unit tests. It behaves like containerd 1.6 where
// the kubelet can tell (measured against it, see test/cri/conformance.ts): which calls
// are idempotent, which answer NOT_FOUND, name reservation, state transitions, and what a
// stopped sandbox does to its containers. Drive it from tests with exitContainer(),
// failNext() and the exec handler; read `calls` to assert what the kubelet asked for.
import { randomBytes, createHash } from 'node:crypto';
import type { CRIMethod, CRIRuntime } from './client.js';
import { CRIError, CRIStatus } from './errors.js';
import type * as T from './types.js';

interface SandboxRecord {
  id: string;
  config: T.PodSandboxConfig;
  state: T.PodSandboxState;
  createdAt: string;
  ip: string;
  runtimeHandler: string;
}

interface ContainerRecord {
  id: string;
  sandboxId: string;
  config: T.ContainerConfig;
  logPath: string;
  state: T.ContainerState;
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  reason: string;
  imageRef: string;
}

export interface FakeRuntimeOptions {
  /** Wall clock in ms (FakeClock.now, or Date.now by default). */
  now?: () => number;
  /** Images present from the start (e.g. the pause and busybox images). */
  images?: string[];
  /** Images PullImage can fetch; any other name fails as containerd does without a registry. */
  pullable?: string[];
}

const hex = () => randomBytes(32).toString('hex');
const digestOf = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
const matchLabels = (labels: T.Labels | undefined, selector: T.Labels | undefined) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

export class FakeRuntime implements CRIRuntime {
  /** Every call in order, with its request. */
  readonly calls: { method: CRIMethod; request: unknown }[] = [];
  /** Runtime conditions Status reports. */
  conditions: T.RuntimeCondition[] = [
    { type: 'RuntimeReady', status: true, reason: '', message: '' },
    { type: 'NetworkReady', status: true, reason: '', message: '' },
  ];
  /** What ExecSync returns; default: exit 0 and no output. */
  execHandler: (containerId: string, cmd: string[]) => T.ExecSyncResponse =
    () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exit_code: 0 });
  podCIDR = '';

  private readonly now: () => number;
  private readonly sandboxes = new Map<string, SandboxRecord>();
  private readonly containers = new Map<string, ContainerRecord>();
  private readonly images = new Map<string, T.Image>();
  private readonly pullable: Set<string>;
  private readonly names = new Map<string, string>();
  private readonly failures = new Map<CRIMethod, CRIError[]>();
  private nextIP = 2;

  constructor(opts: FakeRuntimeOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.pullable = new Set(opts.pullable ?? []);
    for (const name of opts.images ?? []) this.addImage(name);
  }

  /** Makes the next call of `method` fail with `code` (queued: call again for more). */
  failNext(method: CRIMethod, code: number, details = 'injected failure'): void {
    const q = this.failures.get(method) ?? [];
    q.push(new CRIError(method, code, details));
    this.failures.set(method, q);
  }

  /** A running container's process exits (crash, completion, OOM kill). */
  exitContainer(containerId: string, exitCode: number, reason = exitCode === 0 ? 'Completed' : 'Error'): void {
    const c = this.mustContainer('exitContainer', containerId);
    if (c.state !== 'CONTAINER_RUNNING') throw new Error(`fake: container ${containerId} is ${c.state}`);
    Object.assign(c, { state: 'CONTAINER_EXITED', finishedAt: this.nanos(), exitCode, reason });
  }

  addImage(name: string): T.Image {
    const image: T.Image = {
      id: digestOf(name), repo_tags: [name], repo_digests: [], size: '1024', uid: null, username: '', spec: null, pinned: false,
    };
    this.images.set(name, image);
    return image;
  }

  // ---- plumbing ----

  private nanos(): string {
    return `${BigInt(Math.round(this.now())) * 1_000_000n}`;
  }

  private async enter(method: CRIMethod, request: unknown): Promise<void> {
    this.calls.push({ method, request });
    await Promise.resolve();
    const err = this.failures.get(method)?.shift();
    if (err) throw err;
  }

  private err(method: CRIMethod, code: number, details: string): CRIError {
    return new CRIError(method, code, details);
  }

  private mustContainer(method: CRIMethod | 'exitContainer', id: string): ContainerRecord {
    const c = this.containers.get(id);
    if (!c) throw new CRIError(method, CRIStatus.NOT_FOUND, `an error occurred when try to find container "${id}": not found`);
    return c;
  }

  private mustSandbox(method: CRIMethod, id: string): SandboxRecord {
    const s = this.sandboxes.get(id);
    if (!s) throw this.err(method, CRIStatus.NOT_FOUND, `an error occurred when try to find sandbox "${id}": not found`);
    return s;
  }

  private reserve(method: CRIMethod, kind: string, name: string, id: string): void {
    const holder = this.names.get(name);
    if (holder) throw this.err(method, CRIStatus.UNKNOWN, `failed to reserve ${kind} name "${name}": name "${name}" is reserved for "${holder}"`);
    this.names.set(name, id);
  }

  private release(id: string): void {
    for (const [name, holder] of this.names) if (holder === id) this.names.delete(name);
  }

  private killContainer(c: ContainerRecord, exitCode: number): void {
    if (c.state !== 'CONTAINER_RUNNING') return;
    Object.assign(c, { state: 'CONTAINER_EXITED', finishedAt: this.nanos(), exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' });
  }

  private containerOut(c: ContainerRecord): T.Container {
    return {
      id: c.id, pod_sandbox_id: c.sandboxId,
      metadata: { name: c.config.metadata.name, attempt: c.config.metadata.attempt ?? 0 },
      image: { image: this.images.get(c.config.image.image)?.id ?? c.config.image.image, annotations: {} },
      image_ref: c.imageRef, state: c.state, created_at: c.createdAt,
      labels: { ...c.config.labels }, annotations: { ...c.config.annotations },
    };
  }

  private sandboxOut(s: SandboxRecord): T.PodSandbox {
    const m = s.config.metadata;
    return {
      id: s.id, metadata: { name: m.name, uid: m.uid, namespace: m.namespace, attempt: m.attempt ?? 0 },
      state: s.state, created_at: s.createdAt, labels: { ...s.config.labels }, annotations: { ...s.config.annotations },
      runtime_handler: s.runtimeHandler,
    };
  }

  // ---- RuntimeService ----

  async waitForReady(): Promise<void> { /* always ready */ }
  close(): void { /* nothing to close */ }

  async version(): Promise<T.VersionResponse> {
    await this.enter('Version', {});
    return { version: '0.1.0', runtime_name: 'fake', runtime_version: '0.1.0', runtime_api_version: 'v1' };
  }

  async status(verbose = false): Promise<T.StatusResponse> {
    await this.enter('Status', { verbose });
    return { status: { conditions: this.conditions.map((c) => ({ ...c })) }, info: {} };
  }

  async updateRuntimeConfig(podCIDR: string): Promise<void> {
    await this.enter('UpdateRuntimeConfig', { podCIDR });
    this.podCIDR = podCIDR;
  }

  async runPodSandbox(config: T.PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    await this.enter('RunPodSandbox', { config, runtime_handler: runtimeHandler });
    const m = config.metadata;
    const id = hex();
    this.reserve('RunPodSandbox', 'sandbox', `${m.name}_${m.namespace}_${m.uid}_${m.attempt ?? 0}`, id);
    const hostNetwork = config.linux?.security_context?.namespace_options?.network === 'NODE';
    this.sandboxes.set(id, {
      id, config: structuredClone(config), state: 'SANDBOX_READY', createdAt: this.nanos(), runtimeHandler,
      ip: hostNetwork ? '' : `10.88.${this.nextIP >> 8}.${this.nextIP++ & 255}`,
    });
    return id;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.enter('StopPodSandbox', { pod_sandbox_id: podSandboxId });
    const s = this.mustSandbox('StopPodSandbox', podSandboxId);
    for (const c of this.containers.values()) if (c.sandboxId === s.id) this.killContainer(c, 137);
    s.state = 'SANDBOX_NOTREADY';
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.enter('RemovePodSandbox', { pod_sandbox_id: podSandboxId });
    if (!this.sandboxes.has(podSandboxId)) return;
    for (const c of [...this.containers.values()]) {
      if (c.sandboxId !== podSandboxId) continue;
      this.containers.delete(c.id);
      this.release(c.id);
    }
    this.sandboxes.delete(podSandboxId);
    this.release(podSandboxId);
  }

  async podSandboxStatus(podSandboxId: string, verbose = false): Promise<T.PodSandboxStatusResponse> {
    await this.enter('PodSandboxStatus', { pod_sandbox_id: podSandboxId, verbose });
    const s = this.sandboxes.get(podSandboxId);
    if (!s) throw this.err('PodSandboxStatus', CRIStatus.NOT_FOUND, 'an error occurred when try to find sandbox: not found');
    const ns = s.config.linux?.security_context?.namespace_options;
    return {
      status: {
        ...this.sandboxOut(s),
        network: { ip: s.ip, additional_ips: [] },
        linux: { namespaces: { options: { network: ns?.network ?? 'POD', pid: ns?.pid ?? 'POD', ipc: ns?.ipc ?? 'POD', target_id: '' } } },
      },
      info: {},
    };
  }

  async listPodSandbox(filter?: T.PodSandboxFilter): Promise<T.PodSandbox[]> {
    await this.enter('ListPodSandbox', { filter });
    return [...this.sandboxes.values()]
      .filter((s) => (!filter?.id || s.id === filter.id) && (!filter?.state || s.state === filter.state.state)
        && matchLabels(s.config.labels, filter?.label_selector))
      .map((s) => this.sandboxOut(s));
  }

  async createContainer(podSandboxId: string, config: T.ContainerConfig, sandboxConfig: T.PodSandboxConfig): Promise<string> {
    await this.enter('CreateContainer', { pod_sandbox_id: podSandboxId, config, sandbox_config: sandboxConfig });
    const s = this.sandboxes.get(podSandboxId);
    if (!s) throw this.err('CreateContainer', CRIStatus.NOT_FOUND, `failed to find sandbox id "${podSandboxId}": not found`);
    if (!sandboxConfig) throw this.err('CreateContainer', CRIStatus.UNKNOWN, 'sandbox_config is required (containerd 1.6 panics without it)');
    const image = this.images.get(config.image.image) ?? [...this.images.values()].find((i) => i.id === config.image.image);
    if (!image) throw this.err('CreateContainer', CRIStatus.NOT_FOUND, `failed to resolve image "${config.image.image}": not found`);
    if (s.state !== 'SANDBOX_READY') {
      throw this.err('CreateContainer', CRIStatus.NOT_FOUND, `failed to get sandbox container task: no running task found: task ${s.id} not found: not found`);
    }
    const m = sandboxConfig.metadata;
    const id = hex();
    this.reserve('CreateContainer', 'container', `${config.metadata.name}_${m.name}_${m.namespace}_${m.uid}_${config.metadata.attempt ?? 0}`, id);
    const dir = s.config.log_directory ?? '';
    this.containers.set(id, {
      id, sandboxId: s.id, config: structuredClone(config), state: 'CONTAINER_CREATED', createdAt: this.nanos(),
      startedAt: '0', finishedAt: '0', exitCode: 0, reason: '', imageRef: image.id,
      logPath: dir && config.log_path ? `${dir.replace(/\/+$/, '')}/${config.log_path}` : '',
    });
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.enter('StartContainer', { container_id: containerId });
    const c = this.mustContainer('StartContainer', containerId);
    if (c.state !== 'CONTAINER_CREATED') {
      throw this.err('StartContainer', CRIStatus.UNKNOWN, `failed to set starting state for container "${c.id}": container is in ${c.state} state`);
    }
    Object.assign(c, { state: 'CONTAINER_RUNNING', startedAt: this.nanos() });
  }

  /** The process is taken to exit on SIGTERM at once (exit 0 → "Completed"); use
   *  exitContainer first to model anything else. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.enter('StopContainer', { container_id: containerId, timeout: timeoutSeconds });
    const c = this.mustContainer('StopContainer', containerId);
    if (c.state === 'CONTAINER_CREATED') return;
    this.killContainer(c, timeoutSeconds > 0 ? 0 : 137);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.enter('RemoveContainer', { container_id: containerId });
    if (!this.containers.delete(containerId)) return;
    this.release(containerId);
  }

  async listContainers(filter?: T.ContainerFilter): Promise<T.Container[]> {
    await this.enter('ListContainers', { filter });
    return [...this.containers.values()]
      .filter((c) => (!filter?.id || c.id === filter.id) && (!filter?.state || c.state === filter.state.state)
        && (!filter?.pod_sandbox_id || c.sandboxId === filter.pod_sandbox_id) && matchLabels(c.config.labels, filter?.label_selector))
      .map((c) => this.containerOut(c));
  }

  /** What ListContainerStats reports for a container: cumulative CPU ns and working set bytes (default 0). */
  readonly usage = new Map<string, { cpuNanos: bigint; memoryBytes: number }>();

  async listContainerStats(filter?: T.ContainerStatsFilter): Promise<T.ContainerStats[]> {
    await this.enter('ListContainerStats', { filter });
    const ts = this.nanos();
    return [...this.containers.values()]
      .filter((c) => c.state === 'CONTAINER_RUNNING' && (!filter?.id || c.id === filter.id)
        && (!filter?.pod_sandbox_id || c.sandboxId === filter.pod_sandbox_id) && matchLabels(c.config.labels, filter?.label_selector))
      .map((c) => {
        const u = this.usage.get(c.id) ?? { cpuNanos: 0n, memoryBytes: 0 };
        const out = this.containerOut(c);
        return {
          attributes: { id: c.id, metadata: out.metadata, labels: out.labels, annotations: out.annotations },
          cpu: { timestamp: ts, usage_core_nano_seconds: { value: String(u.cpuNanos) }, usage_nano_cores: null },
          memory: { timestamp: ts, working_set_bytes: { value: String(u.memoryBytes) }, available_bytes: null, usage_bytes: null, rss_bytes: null, page_faults: null, major_page_faults: null },
          writable_layer: null,
        };
      });
  }

  async containerStatus(containerId: string, verbose = false): Promise<T.ContainerStatusResponse> {
    await this.enter('ContainerStatus', { container_id: containerId, verbose });
    const c = this.mustContainer('ContainerStatus', containerId);
    const out = this.containerOut(c);
    return {
      status: {
        id: c.id, metadata: out.metadata, state: c.state, created_at: c.createdAt, started_at: c.startedAt,
        finished_at: c.finishedAt, exit_code: c.exitCode, image: { image: c.config.image.image, annotations: {} },
        image_ref: c.imageRef, reason: c.reason, message: '', labels: out.labels, annotations: out.annotations,
        mounts: (c.config.mounts ?? []).map((m) => ({
          container_path: m.container_path, host_path: m.host_path, readonly: m.readonly ?? false,
          selinux_relabel: m.selinux_relabel ?? false, propagation: m.propagation ?? 'PROPAGATION_PRIVATE',
        })),
        log_path: c.logPath,
      },
      info: {},
    };
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.enter('ReopenContainerLog', { container_id: containerId });
    const c = this.mustContainer('ReopenContainerLog', containerId);
    if (c.state !== 'CONTAINER_RUNNING') throw this.err('ReopenContainerLog', CRIStatus.UNKNOWN, 'container is not running');
  }

  async execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<T.ExecSyncResponse> {
    await this.enter('ExecSync', { container_id: containerId, cmd, timeout: timeoutSeconds });
    const c = this.mustContainer('ExecSync', containerId);
    if (c.state !== 'CONTAINER_RUNNING') {
      throw this.err('ExecSync', CRIStatus.UNKNOWN, `failed to exec in container: container is in ${c.state} state`);
    }
    return this.execHandler(containerId, cmd);
  }

  async exec(req: T.ExecRequest): Promise<string> {
    await this.enter('Exec', req);
    const c = this.mustContainer('Exec', req.container_id);
    if (c.state !== 'CONTAINER_RUNNING') throw this.err('Exec', CRIStatus.UNKNOWN, `container is in ${c.state} state`);
    return `http://127.0.0.1:0/exec/${c.id.slice(0, 8)}`;
  }

  async attach(req: T.AttachRequest): Promise<string> {
    await this.enter('Attach', req);
    const c = this.mustContainer('Attach', req.container_id);
    return `http://127.0.0.1:0/attach/${c.id.slice(0, 8)}`;
  }

  async portForward(podSandboxId: string, ports: number[] = []): Promise<string> {
    await this.enter('PortForward', { pod_sandbox_id: podSandboxId, port: ports });
    const s = this.mustSandbox('PortForward', podSandboxId);
    return `http://127.0.0.1:0/portforward/${s.id.slice(0, 8)}`;
  }

  // ---- ImageService ----

  async listImages(image?: string): Promise<T.Image[]> {
    await this.enter('ListImages', { image });
    return [...this.images.values()].filter((i) => !image || i.repo_tags.includes(image)).map((i) => structuredClone(i));
  }

  async imageStatus(image: string, verbose = false): Promise<{ image: T.Image | null; info: T.Labels }> {
    await this.enter('ImageStatus', { image, verbose });
    const found = this.images.get(image) ?? [...this.images.values()].find((i) => i.id === image);
    return { image: found ? structuredClone(found) : null, info: {} };
  }

  async pullImage(image: string, auth?: T.AuthConfig, sandboxConfig?: T.PodSandboxConfig): Promise<string> {
    await this.enter('PullImage', { image, auth, sandbox_config: sandboxConfig });
    if (!this.pullable.has(image) && !this.images.has(image)) {
      throw this.err('PullImage', CRIStatus.UNKNOWN, `failed to pull and unpack image "${image}": failed to resolve reference "${image}": not found`);
    }
    return (this.images.get(image) ?? this.addImage(image)).id;
  }

  async removeImage(image: string): Promise<void> {
    await this.enter('RemoveImage', { image });
    // By name or by id (the config digest), as containerd takes either.
    for (const [name, i] of this.images) if (name === image || i.id === image) this.images.delete(name);
  }

  async imageFsInfo(): Promise<T.ImageFsInfoResponse> {
    await this.enter('ImageFsInfo', {});
    return {
      image_filesystems: [{ timestamp: this.nanos(), fs_id: { mountpoint: '/fake/images' }, used_bytes: { value: `${this.images.size * 1024}` }, inodes_used: { value: `${this.images.size}` } }],
      container_filesystems: [],
    };
  }
}
