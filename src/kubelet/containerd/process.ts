// Runs a private containerd: writes its config, starts it (optionally inside a network
// namespace and a pinned private mount namespace), waits until CRI answers, and stops,
// restarts and tears it down by PID.
import { spawn, type ChildProcess, execFile } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { promisify } from 'node:util';
import { CRIClient } from '../../../cri/index.js';
import { processArgs, stopChild, terminate } from '../../util/index.js';
import { containerdConfig, type ContainerdConfigOptions } from './config.js';
import { containerdPaths, type ContainerdPaths } from './paths.js';
import { pinMountNamespace, releaseMountNamespace } from './mountns.js';
import { killTasks } from './shims.js';
import { removeCgroup } from './cgroups.js';
import { mountsUnder } from './mounts.js';
import { fallbacks } from '../../log/fallback.js';

const fallback = fallbacks('kubelet');

const run = promisify(execFile);

export interface StartContainerdOptions extends Omit<ContainerdConfigOptions, 'paths'> {
  /** Base directory holding this instance's config, root, state, sockets and log. Keep it
   *  short: socket paths must fit in 108 bytes. */
  root: string;
  /** Network namespace to run in: a name under /run/netns or a path. Default: the caller's. */
  netns?: string;
  /** Run in a pinned private mount namespace with a tmpfs over /run/containerd (needed when
   *  several instances share a machine). Default false. */
  isolateMounts?: boolean;
  /** containerd executable; default `containerd` from PATH. */
  binary?: string;
  /** How long start() waits for CRI Version to answer; default 30 s. */
  readyTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace on stop; default 10 s. */
  stopTimeoutMs?: number;
}

export interface DestroyOptions {
  /** First stop and remove every pod sandbox through CRI (so runc removes the container
   *  cgroups); default true. Whatever is left is then killed by PID. */
  graceful?: boolean;
  /** cgroup parents (cgroupfs syntax) to remove afterwards, e.g. the pods' cgroup_parent. */
  cgroupParents?: string[];
  /** Remove the base directory; default true. */
  removeFiles?: boolean;
}

/** A running capstan-managed containerd. */
export interface ContainerdHandle {
  readonly paths: ContainerdPaths;
  /** The CRI (and containerd API) socket path. */
  readonly socket: string;
  /** The containerd daemon's PID; changes on restart(). */
  readonly pid: number;
  /** The containerd version line and CRI runtime version it reported at start. */
  readonly runtimeVersion: string;
  /** Calls `listener` when the daemon exits without stop()/restart()/destroy() asking
   *  (a crash): the kubelet can then restart() it. Returns an unsubscribe function. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): () => void;
  /** Stops the daemon only (SIGTERM, then SIGKILL): shims and containers keep running,
   *  and a later restart() picks them up again. */
  stop(): Promise<void>;
  /** stop() then start again with the same config and namespaces; resolves when CRI answers. */
  restart(): Promise<void>;
  /** Stops everything of this instance: pods (through CRI when graceful), the daemon, its
   *  leftover containers and shims (by PID from its state dir), its mounts and mount
   *  namespace, then its files. Safe to call twice and after a failed start. */
  destroy(opts?: DestroyOptions): Promise<void>;
}

function netnsPath(netns: string): string {
  return isAbsolute(netns) ? netns : `/run/netns/${netns}`;
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch { // no log written: nothing to add to the error
    return '';
  }
}

/**
 * A daemon left running on this root by an earlier capstan process (which crashed or was
 * killed) would hold the metadata lock: stop it by the PID it recorded, if that PID is
 * still containerd with our config. Its shims keep running and the new daemon adopts them.
 */
async function stopStaleDaemon(paths: ContainerdPaths, graceMs: number): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(paths.pidFile, 'utf8'), 10);
  } catch { // no pid file: no earlier daemon to stop
    return;
  }
  const args = processArgs(pid) ?? [];
  if (!(args[0] ?? '').endsWith('containerd') || args[args.indexOf('--config') + 1] !== paths.config) return;
  await terminate([pid], graceMs);
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;


export async function startContainerd(opts: StartContainerdOptions): Promise<ContainerdHandle> {
  const paths = containerdPaths(opts.root);
  if (Buffer.byteLength(paths.ttrpc) > 100) throw new Error(`containerd root ${opts.root} is too long for unix socket paths`);
  for (const d of [paths.base, paths.root, paths.state, paths.opt, paths.runcRoot, paths.registryHosts]) mkdirSync(d, { recursive: true, mode: 0o711 });
  writeFileSync(paths.config, containerdConfig({ ...opts, paths }));
  if (opts.isolateMounts) await pinMountNamespace(paths.mountNamespace);

  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
  let child: ChildProcess | undefined;
  let runtimeVersion = '';
  let destroyed = false;
  let stopping = false;
  const exitListeners = new Set<(code: number | null, signal: NodeJS.Signals | null) => void>();

  const launch = async () => {
    await stopStaleDaemon(paths, stopTimeoutMs);
    rmSync(paths.socket, { force: true });
    const bin = opts.binary ?? 'containerd';
    const enter = [
      ...(opts.isolateMounts ? [`--mount=${paths.mountNamespace}`] : []),
      ...(opts.netns ? [`--net=${netnsPath(opts.netns)}`] : []),
    ];
    // nsenter without --fork execs containerd, so the PID we get is containerd's.
    const [cmd, args] = enter.length
      ? ['nsenter', [...enter, '--', bin, '--config', paths.config]]
      : [bin, ['--config', paths.config]];
    const log = openSync(paths.log, 'a');
    try {
      child = spawn(cmd, args, { stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    const proc = child;
    if (proc.pid !== undefined) writeFileSync(paths.pidFile, `${proc.pid}\n`);
    proc.unref();
    proc.on('error', () => { /* surfaced below through exitCode / the deadline */ });
    proc.once('exit', (code, signal) => {
      if (proc !== child || stopping || destroyed) return;
      for (const l of exitListeners) l(code, signal);
    });
    const client = new CRIClient({ socket: paths.socket, timeouts: { short: 1000 } });
    const deadline = Date.now() + readyTimeoutMs;
    try {
      for (;;) {
        if (exited(proc)) throw new Error(`containerd exited (${proc.exitCode ?? proc.signalCode}):\n${tail(paths.log)}`);
        if (existsSync(paths.socket)) {
          try {
            const v = await client.version();
            runtimeVersion = `${v.runtime_name} ${v.runtime_version} (CRI ${v.runtime_api_version})`;
            return;
          } catch (e) {
            if (Date.now() > deadline) throw e;
          }
        }
        if (Date.now() > deadline) throw new Error(`containerd not ready after ${readyTimeoutMs} ms:\n${tail(paths.log)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } catch (e) {
      await stopDaemon();
      throw e;
    } finally {
      client.close();
    }
  };

  const stopDaemon = async () => {
    const proc = child;
    if (!proc || exited(proc) || proc.pid === undefined) return;
    stopping = true;
    try {
      await stopChild(proc, stopTimeoutMs);
    } finally {
      stopping = false;
    }
  };

  const removePods = async () => {
    if (!child || exited(child) || !existsSync(paths.socket)) return;
    const client = new CRIClient({ socket: paths.socket, timeouts: { short: 2000, long: 15_000 } });
    try {
      for (const s of await client.listPodSandbox()) {
        try {
          await client.stopPodSandbox(s.id);
          await client.removePodSandbox(s.id);
        } catch { /* killed by PID below */ }
      }
    } catch { /* daemon not answering: killed by PID below */ } finally {
      client.close();
    }
  };

  const handle: ContainerdHandle = {
    paths,
    socket: paths.socket,
    get pid() { return child?.pid ?? 0; },
    get runtimeVersion() { return runtimeVersion; },
    onExit(listener) {
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
    stop: stopDaemon,
    async restart() {
      if (destroyed) throw new Error('containerd: restart after destroy');
      await stopDaemon();
      await launch();
    },
    async destroy(d: DestroyOptions = {}) {
      destroyed = true;
      if (d.graceful ?? true) await removePods();
      await stopDaemon();
      await killTasks(paths.state, paths.socket);
      for (const cg of d.cgroupParents ?? []) removeCgroup(cg);
      if (opts.isolateMounts) await releaseMountNamespace(paths.mountNamespace);
      for (const m of mountsUnder(paths.base)) await run('umount', ['-l', m]).catch(() => undefined); // a mount that stays makes rmSync below fail loudly
      if (d.removeFiles ?? true) rmSync(paths.base, { recursive: true, force: true });
    },
  };

  try {
    await launch();
  } catch (e) {
    await handle.destroy({ graceful: false, removeFiles: false }).catch((err: unknown) => fallback('containerd-cleanup-after-failed-start-failed', { error: err }));
    throw e;
  }
  return handle;
}
