// Container exits reach the pod's worker within a moment, not at its next resync: the
// kubelet subscribes to containerd's task events (/tasks/exit, /tasks/oom in the k8s.io
// namespace; containerd 1.6 has no CRI GetContainerEvents) and wakes the pod the container
// belongs to. While the stream is down it relists instead — one ListContainers per second,
// waking pods whose containers changed state — and resubscribes with backoff; after a
// reconnect every pod is woken once, for what happened in between. While the stream is up
// the pods' runtime reads share one node-wide List kept up to 300 s (the slow relist of
// upstream's evented PLEG); an exit updates the one container in it (one ContainerStatus);
// while the stream is down each read lists again.
import { subscribeEvents, type EventStream } from './containerd/index.js';
import type { Clock } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { Backoff } from '../util/index.js';
import { SLOW_RELIST_MS, type RuntimeStateReader } from './runtime-state.js';

export const CRI_NAMESPACE = 'k8s.io';
const RELIST_MS = 1_000;
/** Waits between ContainerStatus calls while the runtime still says running after the exit event. */
const EXIT_RECHECK_MS = [5, 10, 20, 40, 80, 160, 320, 640, 1_000];

export interface ContainerEventsOptions {
  socket: string;
  reader: RuntimeStateReader;
  clock: Clock;
  log: Logger;
  /** Wake one pod's worker. */
  wake(uid: string): void;
  /** Wake every pod (after a gap in the events). */
  wakeAll(): void;
  /** Test hook: subscribe with these instead of containerd's. */
  subscribe?: typeof subscribeEvents;
}

export class ContainerEvents {
  private stream?: EventStream;
  private relistTimer: unknown;
  private retryTimer: unknown;
  private lastStates?: Map<string, [string, string]>;
  private backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
  private stopped = false;
  /** Whether the event stream is up (else the relist runs). */
  connected = false;


  constructor(private o: ContainerEventsOptions) {}

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.o.reader.setRelistPeriod(0);
    this.stream?.close();
    this.o.clock.clearTimeout(this.relistTimer);
    this.o.clock.clearTimeout(this.retryTimer);
  }

  private connect(): void {
    if (this.stopped) return;
    const subscribe = this.o.subscribe ?? subscribeEvents;
    const filters = ['/tasks/exit', '/tasks/oom'].map((t) => `namespace==${CRI_NAMESPACE},topic=="${t}"`);
    const stream = subscribe(this.o.socket, filters, (e) => {
      if (!this.connected) this.backoff.reset();
      this.connected = true;
      // An exec's exit (probes, kubectl exec) changes nothing about the container.
      if (e.processId && e.processId !== e.containerId) return;
      const uid = this.o.reader.podOf(e.containerId);
      if (uid) void this.exited(uid, e.containerId);
    }, (err) => { if (this.stream === stream) this.down(err); });
    this.stream = stream;
    // A subscription answers nothing until an event comes: it counts as up until it fails.
    const wasDown = this.relisting;
    this.connected = true;
    this.relisting = false;
    this.o.reader.setRelistPeriod(SLOW_RELIST_MS);
    this.o.clock.clearTimeout(this.relistTimer);
    if (wasDown) this.o.wakeAll();
  }

  private relisting = false;

  /** containerd's CRI plugin handles the same event on its own: its ContainerStatus may
   *  still say running for a moment. Ask for that one container until it says exited, then
   *  wake the pod, whose sync then reads the rest of the kept List unchanged. */
  private async exited(uid: string, id: string): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      let outcome: 'updated' | 'pending';
      try {
        outcome = await this.o.reader.exited(id);
      } catch (e) {
        this.o.log.warn('container status after its exit event failed', { id, error: (e as Error).message });
        outcome = 'updated';
        this.o.reader.invalidate();
      }
      const wait = EXIT_RECHECK_MS[attempt];
      if (outcome === 'pending' && wait !== undefined) {
        await new Promise((r) => this.o.clock.setTimeout(() => r(undefined), wait));
        continue;
      }
      if (outcome === 'pending') this.o.reader.invalidate();
      this.o.wake(uid);
      return;
    }
  }

  private down(err?: Error): void {
    if (this.stopped) return;
    this.connected = false;
    this.stream = undefined;
    this.o.reader.setRelistPeriod(0);
    this.o.log.warn('container event stream ended; relisting until it is back', { error: err?.message });
    if (!this.relisting) {
      this.relisting = true;
      void this.relist();
    }
    this.o.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.o.clock.setTimeout(() => this.connect(), this.backoff.next());
  }

  private async relist(): Promise<void> {
    if (this.stopped || !this.relisting) return;
    try {
      const now = await this.o.reader.containerStates();
      const before = this.lastStates;
      this.lastStates = now;
      if (before) {
        const changed = new Set<string>();
        for (const [id, [uid, state]] of now) if (before.get(id)?.[1] !== state) changed.add(uid);
        for (const [id, [uid]] of before) if (!now.has(id)) changed.add(uid);
        for (const uid of changed) this.o.wake(uid);
      }
    } catch (e) {
      this.o.log.warn('container relist failed', { error: (e as Error).message });
    }
    if (!this.stopped && this.relisting) this.relistTimer = this.o.clock.setTimeout(() => void this.relist(), RELIST_MS);
  }
}
