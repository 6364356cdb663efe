// What the runtime holds for one pod, read through CRI by the pod's uid label. This is the
// kubelet's only record of "actual": after a restart it is rebuilt from here alone.
// ContainerStatus/PodSandboxStatus answers are cached per object and state, because an
// exited container never changes and a running one changes only by leaving that state.
// While containerd's task events flow (container-events.ts) reads come from one node-wide
// List kept for up to the slow relist period (upstream's evented PLEG relists every 300 s),
// dropped on every exit event. The kubelet's own sandbox and container starts are written
// into that List from their answers (the runtime it uses is wrapped by `trackingRuntime`), so
// a burst of pod starts does not list once per step; its stops and removals drop the List.
// Without the events every read lists that pod.
import type {
  CRIRuntime, ContainerConfig, ContainerStatus, PodSandbox, PodSandboxConfig, PodSandboxStatus, Container,
} from '../../cri/index.js';
import { isNotFound } from '../../cri/index.js';
import {
  CONTAINER_NAME_LABEL, INIT_CONTAINER_ANNOTATION, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL, RESTART_COUNT_ANNOTATION,
} from './labels.js';

export interface SandboxState {
  id: string;
  attempt: number;
  ready: boolean;
  createdAt: number; // ms
  ip: string;
  ips: string[];
  /** Host network: the pod's IP is the node's. */
  hostNetwork: boolean;
}

export interface ContainerState {
  id: string;
  sandboxId: string;
  name: string;
  init: boolean;
  restartCount: number;
  state: ContainerStatus['state'];
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  image: string;
  imageRef: string;
  hash: string;
  annotations: Record<string, string>;
}

export interface PodRuntimeState {
  uid: string;
  /** Newest first. */
  sandboxes: SandboxState[];
  /** Newest first. */
  containers: ContainerState[];
}

export interface RuntimePodRef { uid: string; namespace: string; name: string }

const ms = (nanos: string | number) => Number(BigInt(nanos || 0) / 1_000_000n);

/** The relist period while the event stream is healthy (upstream's evented PLEG: 300 s). */
export const SLOW_RELIST_MS = 300_000;

interface Snapshot { generation: number; at: number; sandboxes: PodSandbox[]; containers: Container[] }

/** One of the kubelet's own changes, applied to a List (idempotent: the List may already show it). */
type Change = (s: Snapshot) => void;

const nanos = (ms: number) => String(BigInt(Math.round(ms)) * 1_000_000n);

export class RuntimeStateReader {
  /** 0: every read lists (no events, or their stream is down). */
  private relistMs = 0;
  private generation = 0;
  private snapshot?: Snapshot;
  private fetching?: Promise<Snapshot>;
  /** Changes made while `fetching` was in flight: its answer may predate them. */
  private during?: Change[];
  private containerCache = new Map<string, ContainerState>();
  private sandboxCache = new Map<string, SandboxState>();
  /** ContainerStatus answers asked right after a start (undefined: the call failed; ask again). */
  private prefetched = new Map<string, Promise<ContainerStatus | null | undefined>>();
  /** Pod uid of every container and sandbox id seen in a List (task events name only the id). */
  private owners = new Map<string, string>();

  constructor(private runtime: CRIRuntime, private now: () => number = Date.now) {}

  /** Reads from a node-wide List kept up to `ms` (the events are healthy), or 0: list every read. */
  setRelistPeriod(ms: number): void {
    if (ms === this.relistMs) return;
    this.relistMs = ms;
    this.invalidate();
  }

  get relistPeriodMs(): number {
    return this.relistMs;
  }

  /** The runtime changed (an exit event, the kubelet's own call): the next read lists again. */
  invalidate(): void {
    this.generation++;
    this.snapshot = undefined;
    this.fetching = undefined;
    this.during = undefined;
  }

  /** A change the kubelet made, written into the kept List (and into one being fetched). */
  private apply(change: Change): void {
    if (this.relistMs === 0) return;
    if (this.snapshot?.generation === this.generation) change(this.snapshot);
    this.during?.push(change);
  }

  /** RunPodSandbox answered `id`: the List gains a ready sandbox with the config's labels. */
  sandboxCreated(id: string, config: PodSandboxConfig): void {
    const uid = config.labels?.[POD_UID_LABEL];
    if (uid) this.owners.set(id, uid);
    const created_at = nanos(this.now());
    this.apply((s) => {
      if (s.sandboxes.some((x) => x.id === id)) return;
      s.sandboxes.push({
        id, metadata: { ...config.metadata, attempt: config.metadata.attempt ?? 0 }, state: 'SANDBOX_READY', created_at,
        labels: config.labels ?? {}, annotations: config.annotations ?? {}, runtime_handler: '',
      });
    });
  }

  /** CreateContainer answered `id`: the List gains a created container. */
  containerCreated(id: string, sandboxId: string, config: ContainerConfig): void {
    const uid = config.labels?.[POD_UID_LABEL];
    if (uid) this.owners.set(id, uid);
    const created_at = nanos(this.now());
    this.apply((s) => {
      if (s.containers.some((x) => x.id === id)) return;
      s.containers.push({
        id, pod_sandbox_id: sandboxId, metadata: { name: config.metadata.name, attempt: config.metadata.attempt ?? 0 },
        image: { image: config.image.image, annotations: {} }, image_ref: '', state: 'CONTAINER_CREATED', created_at,
        labels: config.labels ?? {}, annotations: config.annotations ?? {},
      });
    });
  }

  /** StartContainer returned: a container the List shows as created is running (an exit seen
   *  meanwhile stands). Its ContainerStatus is asked at once, while the pod's worker goes on
   *  with its next container; the read after the starts takes that answer. */
  containerStarted(id: string): void {
    const asked = this.runtime.containerStatus(id).then((r) => r.status, (e: unknown) => (isNotFound(e) ? null : undefined));
    this.prefetched.set(id, asked);
    this.apply((s) => {
      const c = s.containers.find((x) => x.id === id);
      if (c?.state === 'CONTAINER_CREATED') c.state = 'CONTAINER_RUNNING';
    });
  }

  /**
   * A task exit event named `id`. For a container, one ContainerStatus: once the runtime
   * reports it exited, that container alone is updated in the kept List and the status cache
   * (the rest of the List stays). `pending`: the runtime still says running (containerd's CRI
   * plugin handles the same event on its own, a moment later): ask again shortly. Anything
   * else (a sandbox, an id no List showed) drops the List.
   */
  async exited(id: string): Promise<'updated' | 'pending'> {
    const listed = this.snapshot?.generation === this.generation ? this.snapshot.containers.find((x) => x.id === id) : undefined;
    const known = this.containerCache.get(id);
    const sandboxId = listed?.pod_sandbox_id ?? known?.sandboxId;
    if (sandboxId === undefined) {
      this.invalidate();
      return 'updated';
    }
    let st: ContainerStatus | null;
    try {
      st = (await this.runtime.containerStatus(id)).status;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      st = null;
    }
    if (!st) {
      this.containerCache.delete(id);
      this.apply((s) => { s.containers = s.containers.filter((x) => x.id !== id); });
      return 'updated';
    }
    if (st.state === 'CONTAINER_RUNNING' || st.state === 'CONTAINER_CREATED') return 'pending';
    const state = st.state;
    this.cacheContainer({ id, pod_sandbox_id: sandboxId, labels: st.labels ?? {}, annotations: st.annotations ?? {} }, st);
    this.apply((s) => {
      const c = s.containers.find((x) => x.id === id);
      if (c) c.state = state;
    });
    return 'updated';
  }

  /** The status of a sandbox the kubelet just created, without listing. */
  async sandboxStatus(id: string): Promise<SandboxState | undefined> {
    return this.sandbox({ id, state: 'SANDBOX_READY' } as PodSandbox);
  }

  private async nodeWide(): Promise<Snapshot> {
    const s = this.snapshot;
    if (s && s.generation === this.generation && this.now() - s.at < this.relistMs) return s;
    if (this.fetching) return this.fetching;
    const generation = this.generation;
    const at = this.now();
    const during: Change[] = [];
    this.during = during;
    const fetching = Promise.all([this.runtime.listPodSandbox(), this.runtime.listContainers()]).then(([sandboxes, containers]) => {
      const snap = { generation, at, sandboxes, containers };
      // The kubelet's own starts while listing are written in; anything else that changed
      // meanwhile (an exit, a stop) means the answer is used once, not kept.
      for (const change of during) change(snap);
      if (this.generation === generation) this.snapshot = snap;
      return snap;
    }).finally(() => {
      if (this.fetching === fetching) this.fetching = undefined;
      if (this.during === during) this.during = undefined;
    });
    this.fetching = fetching;
    return fetching;
  }

  private async listed(uid: string): Promise<[PodSandbox[], Container[]]> {
    if (this.relistMs > 0) {
      const s = await this.nodeWide();
      const mine = <T extends { labels: { [k: string]: string } }>(xs: T[]) => xs.filter((x) => x.labels[POD_UID_LABEL] === uid);
      return [mine(s.sandboxes), mine(s.containers)];
    }
    const selector = { [POD_UID_LABEL]: uid };
    return Promise.all([
      this.runtime.listPodSandbox({ label_selector: selector }),
      this.runtime.listContainers({ label_selector: selector }),
    ]);
  }

  async read(uid: string): Promise<PodRuntimeState> {
    const [sandboxes, containers] = await this.listed(uid);
    for (const o of [...sandboxes, ...containers]) this.owners.set(o.id, uid);
    const sb = (await Promise.all(sandboxes.map((s) => this.sandbox(s)))).filter((s): s is SandboxState => !!s);
    const cs = (await Promise.all(containers.map((c) => this.container(c)))).filter((c): c is ContainerState => !!c);
    sb.sort((a, b) => b.createdAt - a.createdAt || b.attempt - a.attempt);
    // restartCount only grows per name (across sandboxes too), so it orders instances even
    // when two were created within the same millisecond.
    cs.sort((a, b) => b.restartCount - a.restartCount || b.createdAt - a.createdAt);
    return { uid, sandboxes: sb, containers: cs };
  }

  /** Every pod the runtime has sandboxes or containers for (garbage collection, restart). */
  async pods(): Promise<RuntimePodRef[]> {
    const [sandboxes, containers] = this.relistMs > 0
      ? await this.nodeWide().then((s) => [s.sandboxes, s.containers] as const)
      : await Promise.all([this.runtime.listPodSandbox(), this.runtime.listContainers()]);
    const out = new Map<string, RuntimePodRef>();
    for (const o of [...sandboxes, ...containers]) {
      const uid = o.labels[POD_UID_LABEL];
      if (uid) this.owners.set(o.id, uid);
      if (uid && !out.has(uid)) out.set(uid, { uid, namespace: o.labels[POD_NAMESPACE_LABEL] ?? '', name: o.labels[POD_NAME_LABEL] ?? '' });
    }
    return [...out.values()];
  }

  /** The pod a container or sandbox belongs to, if a List has shown it. */
  podOf(id: string): string | undefined {
    return this.owners.get(id);
  }

  /** Every container's state in one ListContainers: id → [pod uid, state] (the relist fallback). */
  async containerStates(): Promise<Map<string, [string, string]>> {
    const out = new Map<string, [string, string]>();
    for (const c of await this.runtime.listContainers()) {
      const uid = c.labels[POD_UID_LABEL];
      if (!uid) continue;
      this.owners.set(c.id, uid);
      out.set(c.id, [uid, c.state]);
    }
    return out;
  }

  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      this.owners.delete(id);
      this.prefetched.delete(id);
      this.containerCache.delete(id);
      this.sandboxCache.delete(id);
    }
  }

  private async sandbox(s: PodSandbox): Promise<SandboxState | undefined> {
    const cached = this.sandboxCache.get(s.id);
    if (cached && cached.ready === (s.state === 'SANDBOX_READY')) return cached;
    let st: PodSandboxStatus | null;
    try {
      st = (await this.runtime.podSandboxStatus(s.id)).status;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    if (!st) return undefined;
    const ip = st.network?.ip ?? '';
    const out: SandboxState = {
      id: s.id, attempt: st.metadata?.attempt ?? 0, ready: st.state === 'SANDBOX_READY', createdAt: ms(st.created_at),
      ip, ips: [ip, ...(st.network?.additional_ips ?? []).map((a) => a.ip)].filter(Boolean),
      hostNetwork: st.linux?.namespaces?.options?.network === 'NODE',
    };
    this.sandboxCache.set(s.id, out);
    return out;
  }

  private async container(c: Container): Promise<ContainerState | undefined> {
    const cached = this.containerCache.get(c.id);
    if (cached && cached.state === c.state) return cached;
    const asked = this.prefetched.get(c.id);
    if (asked) {
      this.prefetched.delete(c.id);
      const st = await asked;
      if (st === null) return undefined;
      if (st && st.state === c.state) return this.cacheContainer(c, st);
    }
    let st: ContainerStatus | null;
    try {
      st = (await this.runtime.containerStatus(c.id)).status;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    if (!st) return undefined;
    return this.cacheContainer(c, st);
  }

  private cacheContainer(c: Pick<Container, 'id' | 'pod_sandbox_id' | 'labels' | 'annotations'>, st: ContainerStatus): ContainerState {
    const out: ContainerState = {
      id: c.id, sandboxId: c.pod_sandbox_id, name: c.labels[CONTAINER_NAME_LABEL] ?? st.metadata?.name ?? '',
      init: c.annotations[INIT_CONTAINER_ANNOTATION] === 'true',
      restartCount: Number(c.annotations[RESTART_COUNT_ANNOTATION] ?? st.metadata?.attempt ?? 0) || 0,
      state: st.state, createdAt: ms(st.created_at), startedAt: ms(st.started_at), finishedAt: ms(st.finished_at),
      exitCode: st.exit_code, reason: st.reason, message: st.message,
      image: st.image?.image ?? '', imageRef: st.image_ref, hash: c.annotations['io.kubernetes.container.hash'] ?? '',
      annotations: c.annotations,
    };
    if (out.state !== 'CONTAINER_UNKNOWN') this.containerCache.set(c.id, out);
    return out;
  }
}

/** The newest instance of each container name (init or regular) in `state`. */
export function latestByName(state: PodRuntimeState, init: boolean): Map<string, ContainerState> {
  const out = new Map<string, ContainerState>();
  for (const c of state.containers) if (c.init === init && !out.has(c.name)) out.set(c.name, c);
  return out;
}

/** The second-newest instance of a container: its lastState. */
export function previousInstance(state: PodRuntimeState, name: string, init: boolean): ContainerState | undefined {
  return state.containers.filter((c) => c.name === name && c.init === init)[1];
}

/** What a successful call changes in the reader's List (the rest drop it). */
const RECORDED: Record<string, (reader: RuntimeStateReader, args: unknown[], answer: unknown) => void> = {
  runPodSandbox: (r, [config], id) => r.sandboxCreated(id as string, config as PodSandboxConfig),
  createContainer: (r, [sandboxId, config], id) => r.containerCreated(id as string, sandboxId as string, config as ContainerConfig),
  startContainer: (r, [id]) => r.containerStarted(id as string),
};
const DROPPING = new Set<string>(['stopPodSandbox', 'removePodSandbox', 'stopContainer', 'removeContainer']);

/** The runtime with every call that changes containers or sandboxes keeping the reader's List
 *  true: a start is written into it from the answer; a stop, a removal or a failed start
 *  (which may leave something behind) drops it when it settles. */
export function trackingRuntime(runtime: CRIRuntime, reader: RuntimeStateReader): CRIRuntime {
  return new Proxy(runtime, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const record = typeof prop === 'string' ? RECORDED[prop] : undefined;
      if (!record && !(typeof prop === 'string' && DROPPING.has(prop))) return v.bind(target);
      return async (...args: unknown[]) => {
        let answer: unknown;
        try {
          answer = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (e) {
          reader.invalidate();
          throw e;
        }
        if (record) record(reader, args, answer);
        else reader.invalidate();
        return answer;
      };
    },
  });
}
