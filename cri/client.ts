// A typed CRI runtime.v1 client over a unix socket, on @grpc/grpc-js.
//
// Contract:
// * Every call has a deadline (CRIClientOptions.timeouts). StopContainer and ExecSync add
//   their own `timeout` seconds to it, as the kubelet does.
// * Calls wait for the channel to be ready (gRPC wait-for-ready), so a call made while the
//   runtime restarts is sent once the socket answers again, within its deadline. The pick
//   happens before anything is written, so this is safe for every RPC.
// * containerd's "server is not initialized yet" (the socket answers before the CRI service
//   is ready, right after a (re)start) is retried for every RPC until the deadline.
// * A call that fails with UNAVAILABLE after it was sent (the runtime died mid-call) is
//   retried until the deadline only when the RPC is idempotent (status, list, stop, remove,
//   pull, ...). RunPodSandbox, CreateContainer, StartContainer and ExecSync are not
//   retried: the caller re-lists and decides, since the runtime may have acted.
// * Failures are CRIError with the gRPC code. NOT_FOUND from a status call means the
//   object is gone.
// * One client holds one channel; close() it when done. Safe for concurrent use.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CRIError } from './errors.js';
import type * as T from './types.js';

export type CRIMethod =
  | 'Version' | 'Status' | 'UpdateRuntimeConfig'
  | 'RunPodSandbox' | 'StopPodSandbox' | 'RemovePodSandbox' | 'PodSandboxStatus' | 'ListPodSandbox'
  | 'CreateContainer' | 'StartContainer' | 'StopContainer' | 'RemoveContainer' | 'ListContainers'
  | 'ContainerStatus' | 'ReopenContainerLog' | 'ListContainerStats' | 'ExecSync' | 'Exec' | 'Attach' | 'PortForward'
  | 'ListImages' | 'ImageStatus' | 'PullImage' | 'RemoveImage' | 'ImageFsInfo';

const IMAGE_METHODS = new Set<CRIMethod>(['ListImages', 'ImageStatus', 'PullImage', 'RemoveImage', 'ImageFsInfo']);
const NOT_RETRIED = new Set<CRIMethod>(['RunPodSandbox', 'CreateContainer', 'StartContainer', 'ExecSync']);
const LONG_METHODS = new Set<CRIMethod>([
  'RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox', 'CreateContainer', 'StartContainer',
  'StopContainer', 'RemoveContainer', 'ExecSync', 'PullImage', 'RemoveImage',
]);

export interface CRIClientOptions {
  /** Socket path or `unix://` URL, e.g. /run/containerd/containerd.sock. */
  socket: string;
  /** Deadlines in ms: `short` for status/list/version calls (10 s), `long` for calls that
   *  change state or pull (2 min), and per-method overrides. */
  timeouts?: { short?: number; long?: number } & Partial<Record<CRIMethod, number>>;
  /** Called after every call (for metrics): RPC name, wall time, gRPC code (0 = OK). */
  observe?: (method: CRIMethod, ms: number, code: number) => void;
}

let packageCache: grpc.GrpcObject | undefined;

/** The path of api.proto; it sits next to this file in the source tree, and two levels up
 *  (cri/api.proto) from the compiled dist/cri/client.js. */
export function protoPath(): string {
  for (const rel of ['./api.proto', '../../cri/api.proto']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new Error('cri: api.proto not found next to the CRI client');
}

function loadPackage(): grpc.GrpcObject {
  packageCache ??= grpc.loadPackageDefinition(protoLoader.loadSync(protoPath(), {
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  }));
  return packageCache;
}

/** The RuntimeService and ImageService definitions, e.g. to serve a fake runtime in tests
 *  with grpc.Server.addService. */
export function criServices(): { RuntimeService: grpc.ServiceDefinition; ImageService: grpc.ServiceDefinition } {
  const v1 = (loadPackage().runtime as grpc.GrpcObject).v1 as grpc.GrpcObject;
  return {
    RuntimeService: (v1.RuntimeService as grpc.ServiceClientConstructor).service,
    ImageService: (v1.ImageService as grpc.ServiceClientConstructor).service,
  };
}

type Unary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class CRIClient {
  readonly address: string;
  private readonly channel: grpc.Channel;
  private readonly runtime: grpc.Client;
  private readonly images: grpc.Client;
  private readonly short: number;
  private readonly long: number;
  private readonly overrides: Partial<Record<CRIMethod, number>>;
  private readonly observe?: CRIClientOptions['observe'];

  constructor(opts: CRIClientOptions) {
    this.address = opts.socket.startsWith('unix:') ? opts.socket : `unix://${opts.socket}`;
    const { short, long, ...overrides } = opts.timeouts ?? {};
    this.short = short ?? 10_000;
    this.long = long ?? 120_000;
    this.overrides = overrides;
    this.observe = opts.observe;
    const v1 = (loadPackage().runtime as grpc.GrpcObject).v1 as grpc.GrpcObject;
    // A restarted runtime should be picked up within a fraction of a second, not after
    // gRPC's default exponential backoff (1 s growing to 120 s).
    const channelOptions: grpc.ChannelOptions = {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.max_receive_message_length': 64 << 20,
    };
    this.channel = new grpc.Channel(this.address, grpc.credentials.createInsecure(), channelOptions);
    const Runtime = v1.RuntimeService as grpc.ServiceClientConstructor;
    const Images = v1.ImageService as grpc.ServiceClientConstructor;
    this.runtime = new Runtime(this.address, grpc.credentials.createInsecure(), { channelOverride: this.channel });
    this.images = new Images(this.address, grpc.credentials.createInsecure(), { channelOverride: this.channel });
  }

  /** The deadline a call of `method` gets, in ms. */
  timeoutFor(method: CRIMethod): number {
    return this.overrides[method] ?? (LONG_METHODS.has(method) ? this.long : this.short);
  }

  /** Resolves once the channel is connected; rejects with UNAVAILABLE after `ms`. */
  waitForReady(ms = this.short): Promise<void> {
    return new Promise((resolve, reject) => {
      this.runtime.waitForReady(Date.now() + ms, (err) =>
        err ? reject(new CRIError('waitForReady', grpc.status.UNAVAILABLE, err.message)) : resolve());
    });
  }

  close(): void {
    this.runtime.close();
    this.images.close();
    this.channel.close();
  }

  /** One RPC with the contract above. `extraMs` lengthens the deadline. */
  async call<R>(method: CRIMethod, req: object, extraMs = 0): Promise<R> {
    const start = Date.now();
    const deadline = start + this.timeoutFor(method) + extraMs;
    const client = IMAGE_METHODS.has(method) ? this.images : this.runtime;
    const fn = (client as unknown as Record<string, Unary>)[method].bind(client) as Unary;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await new Promise<R>((resolve, reject) => {
          const md = new grpc.Metadata({ waitForReady: true });
          fn(req, md, { deadline }, (err, out) => (err ? reject(err) : resolve(out as R)));
        });
        this.observe?.(method, Date.now() - start, grpc.status.OK);
        return res;
      } catch (e) {
        const err = e as grpc.ServiceError;
        const code = typeof err.code === 'number' ? err.code : grpc.status.UNKNOWN;
        // containerd serves its socket a moment before the CRI service is initialized and
        // answers "server is not initialized yet" (UNKNOWN) meanwhile: nothing ran, so any
        // RPC may be retried.
        const notInitialized = code === grpc.status.UNKNOWN && /server is not initialized yet/.test(err.details ?? '');
        const retry = (notInitialized || (code === grpc.status.UNAVAILABLE && !NOT_RETRIED.has(method))) && Date.now() + 50 < deadline;
        if (retry) {
          await sleep(Math.min(50 * 2 ** attempt, 500, Math.max(0, deadline - Date.now() - 10)));
          continue;
        }
        this.observe?.(method, Date.now() - start, code);
        throw new CRIError(method, code, err.details ?? err.message);
      }
    }
  }

  // ---- RuntimeService ----

  version(): Promise<T.VersionResponse> {
    return this.call('Version', { version: 'v1' });
  }

  /** Runtime conditions (RuntimeReady, NetworkReady); `info` only when verbose. */
  status(verbose = false): Promise<T.StatusResponse> {
    return this.call('Status', { verbose });
  }

  /** Hands the node's pod CIDR to the runtime (containerd renders it into a CNI template). */
  async updateRuntimeConfig(podCIDR: string): Promise<void> {
    await this.call('UpdateRuntimeConfig', { runtime_config: { network_config: { pod_cidr: podCIDR } } });
  }

  /** Creates and starts a sandbox; resolves to its id. A failure can leave a NOTREADY
   *  sandbox holding the name: stop and remove it, or bump metadata.attempt. */
  async runPodSandbox(config: T.PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const res = await this.call<{ pod_sandbox_id: string }>('RunPodSandbox', { config, runtime_handler: runtimeHandler });
    return res.pod_sandbox_id;
  }

  /** Stopping a stopped sandbox succeeds; kills its containers (exit 137). An unknown id is
   *  NOT_FOUND in containerd 1.6, although the CRI comments call the RPC idempotent. */
  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.call('StopPodSandbox', { pod_sandbox_id: podSandboxId });
  }

  /** Removes the sandbox and its containers, running or not. An unknown id succeeds. */
  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.call('RemovePodSandbox', { pod_sandbox_id: podSandboxId });
  }

  /** NOT_FOUND when the sandbox does not exist. */
  podSandboxStatus(podSandboxId: string, verbose = false): Promise<T.PodSandboxStatusResponse> {
    return this.call('PodSandboxStatus', { pod_sandbox_id: podSandboxId, verbose });
  }

  async listPodSandbox(filter?: T.PodSandboxFilter): Promise<T.PodSandbox[]> {
    return (await this.call<{ items: T.PodSandbox[] }>('ListPodSandbox', { filter: filter ?? null })).items;
  }

  /** `sandboxConfig` is the config the sandbox was run with (containerd 1.6 requires it). */
  async createContainer(podSandboxId: string, config: T.ContainerConfig, sandboxConfig: T.PodSandboxConfig): Promise<string> {
    const res = await this.call<{ container_id: string }>('CreateContainer', {
      pod_sandbox_id: podSandboxId, config, sandbox_config: sandboxConfig,
    });
    return res.container_id;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.call('StartContainer', { container_id: containerId });
  }

  /** SIGTERM (or the image's stop signal), SIGKILL after `timeoutSeconds`. Stopping an
   *  exited container succeeds; an unknown id is NOT_FOUND (containerd 1.6). */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.call('StopContainer', { container_id: containerId, timeout: timeoutSeconds }, timeoutSeconds * 1000);
  }

  /** A running container is killed first. An unknown id succeeds. */
  async removeContainer(containerId: string): Promise<void> {
    await this.call('RemoveContainer', { container_id: containerId });
  }

  async listContainers(filter?: T.ContainerFilter): Promise<T.Container[]> {
    return (await this.call<{ containers: T.Container[] }>('ListContainers', { filter: filter ?? null })).containers;
  }

  /** NOT_FOUND when the container does not exist; `info.info` (JSON) carries the pid when verbose. */
  containerStatus(containerId: string, verbose = false): Promise<T.ContainerStatusResponse> {
    return this.call('ContainerStatus', { container_id: containerId, verbose });
  }

  /** Usage of the running containers the filter selects (containerd 1.6: from their cgroups). */
  async listContainerStats(filter?: T.ContainerStatsFilter): Promise<T.ContainerStats[]> {
    return (await this.call<{ stats: T.ContainerStats[] }>('ListContainerStats', { filter: filter ?? null })).stats;
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.call('ReopenContainerLog', { container_id: containerId });
  }

  /** Runs `cmd` in the container and collects its output. `timeoutSeconds` 0 = no limit in
   *  the runtime (the call deadline still applies). A non-zero exit is not an error. */
  execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<T.ExecSyncResponse> {
    return this.call('ExecSync', { container_id: containerId, cmd, timeout: timeoutSeconds }, timeoutSeconds * 1000);
  }

  /** A stream-server URL to run `cmd` interactively (SPDY/WebSocket, kubelet proxies it). */
  async exec(req: T.ExecRequest): Promise<string> {
    return (await this.call<{ url: string }>('Exec', req)).url;
  }

  async attach(req: T.AttachRequest): Promise<string> {
    return (await this.call<{ url: string }>('Attach', req)).url;
  }

  async portForward(podSandboxId: string, ports: number[] = []): Promise<string> {
    return (await this.call<{ url: string }>('PortForward', { pod_sandbox_id: podSandboxId, port: ports })).url;
  }

  // ---- ImageService ----

  async listImages(image?: string): Promise<T.Image[]> {
    const filter = image ? { image: { image } } : null;
    return (await this.call<{ images: T.Image[] }>('ListImages', { filter })).images;
  }

  /** The image, or null when the runtime does not have it (not an error). */
  async imageStatus(image: string, verbose = false): Promise<{ image: T.Image | null; info: T.Labels }> {
    return this.call('ImageStatus', { image: { image }, verbose });
  }

  /** Resolves to the image ref (digest). Local-only names (localhost/...) cannot be pulled
   *  without a registry: check imageStatus first. */
  async pullImage(image: string, auth?: T.AuthConfig, sandboxConfig?: T.PodSandboxConfig): Promise<string> {
    const res = await this.call<{ image_ref: string }>('PullImage', {
      image: { image }, auth: auth ?? null, sandbox_config: sandboxConfig ?? null,
    });
    return res.image_ref;
  }

  /** Idempotent. */
  async removeImage(image: string): Promise<void> {
    await this.call('RemoveImage', { image: { image } });
  }

  imageFsInfo(): Promise<T.ImageFsInfoResponse> {
    return this.call('ImageFsInfo', {});
  }
}

/** The RPC surface of CRIClient, for fakes in kubelet unit tests. */
export type CRIRuntime = Omit<CRIClient, 'call' | 'address' | 'timeoutFor'>;
