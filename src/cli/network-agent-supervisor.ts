// `capstan node` runs the network agent as a child process it supervises, the way a node
// runs calico-node next to the kubelet: the agent can be restarted (`kill <pid>` — SIGTERM
// for a graceful restart, SIGKILL for a crash) without touching containerd, the kubelet or
// any pod. Its PID is in <data-dir>/network-agent.pid; its logs go to the node's stdout/stderr.
//
//   startNode ──fork──► capstan network-agent … (same netns, IPC channel)
//      ▲  "ready" over IPC once it serves CNI        │ exits (any code, any signal)
//      └────────── respawn after 1 s (doubling to 30 s while it keeps dying young) ◄┘
//
// The IPC channel is the agent's lifeline: when the node process dies, the channel closes and
// the agent shuts down gracefully rather than live on as an orphan holding the CNI socket.
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log/index.js';
import { Backoff, stopChild } from '../util/index.js';

const capstanBin = fileURLToPath(new URL('../../../bin/capstan.js', import.meta.url));

/** The message a supervised agent sends once it serves CNI requests. */
export const READY_MESSAGE = 'capstan-network-agent-ready';

export interface SupervisedAgent {
  /** The running agent's PID (undefined between a death and its respawn). */
  pid(): number | undefined;
  /** How many times the agent has been started after the first. */
  restarts(): number;
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  /** `capstan network-agent` flags. */
  args: string[];
  pidFile: string;
  log: Logger;
  /** How long the first start may take before startNode fails (default 60 s). */
  startTimeoutMs?: number;
  /** Stop: SIGTERM, then SIGKILL after this (default 15 s). */
  stopGraceMs?: number;
}

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** An agent that ran this long before dying is restarted after the minimum delay again. */
const HEALTHY_RUN_MS = 30_000;

/** Starts the agent; resolves once it serves CNI (or rejects if the first start fails). */
export async function superviseNetworkAgent(o: SuperviseOptions): Promise<SupervisedAgent> {
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  const backoff = new Backoff({ initialMs: MIN_BACKOFF_MS, maxMs: MAX_BACKOFF_MS });
  let timer: NodeJS.Timeout | undefined;
  let exited: Promise<void> = Promise.resolve();

  const spawnAgent = (onFirst?: { ready: () => void; failed: (e: Error) => void }): void => {
    const startedAt = Date.now();
    const c = fork(capstanBin, ['network-agent', ...o.args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child = c;
    if (c.pid) writeFileSync(o.pidFile, `${c.pid}\n`);
    o.log.info('network agent started', { pid: c.pid, restarts });
    c.on('message', (m) => {
      if (m !== READY_MESSAGE) return;
      backoff.reset();
      onFirst?.ready();
      onFirst = undefined;
    });
    c.on('error', (e) => o.log.warn('network agent process error', { error: e.message }));
    exited = new Promise((resolve) => c.once('exit', (code, signal) => {
      if (child === c) child = undefined;
      resolve();
      if (onFirst) {
        onFirst.failed(new Error(`the network agent exited before it was ready (${signal ?? `code ${code}`})`));
        return;
      }
      if (stopping) return;
      if (Date.now() - startedAt > HEALTHY_RUN_MS) backoff.reset();
      const delay = backoff.next();
      (code === 0 ? o.log.info : o.log.warn)('network agent exited; restarting', { pid: c.pid, code, signal, restartInMs: delay });
      timer = setTimeout(() => { timer = undefined; restarts++; spawnAgent(); }, delay);
    }));
  };

  const stop = async (): Promise<void> => {
    stopping = true;
    if (timer) clearTimeout(timer);
    const c = child;
    if (c) {
      await stopChild(c, o.stopGraceMs ?? 15_000);
      await exited;
    }
    rmSync(o.pidFile, { force: true });
  };

  try {
    await new Promise<void>((ready, failed) => {
      const t = setTimeout(() => failed(new Error('the network agent did not become ready in time')), o.startTimeoutMs ?? 60_000);
      spawnAgent({ ready: () => { clearTimeout(t); ready(); }, failed: (e) => { clearTimeout(t); failed(e); } });
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { pid: () => child?.pid, restarts: () => restarts, stop };
}
