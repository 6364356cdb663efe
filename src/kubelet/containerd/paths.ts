import { join } from 'node:path';

/**
 * Where one capstan-managed containerd keeps everything, under one base directory, so
 * several can run on one machine (tests, the multi-node lab) without sharing a path.
 * Unix socket paths must stay under 108 bytes: keep `base` short.
 */
export interface ContainerdPaths {
  base: string;
  config: string;
  /** containerd's persistent root (content store, snapshots, metadata). */
  root: string;
  /** containerd's state dir (task bundles, shim pid files, netns mounts). */
  state: string;
  socket: string;
  ttrpc: string;
  debug: string;
  /** io.containerd.internal.v1.opt. */
  opt: string;
  /** runc's --root (container state json). */
  runcRoot: string;
  log: string;
  /** The daemon's PID, so a restarted kubelet can stop a daemon its predecessor left. */
  pidFile: string;
  /** Bind-mount of the pinned private mount namespace (when mounts are isolated). */
  mountNamespace: string;
  /** The CRI plugin's registry `config_path`: `<host[:port]>/hosts.toml` per registry (CA, mirrors). */
  registryHosts: string;
}

export function containerdPaths(base: string): ContainerdPaths {
  return {
    base,
    config: join(base, 'config.toml'),
    root: join(base, 'root'),
    state: join(base, 'state'),
    socket: join(base, 'containerd.sock'),
    ttrpc: join(base, 'containerd.sock.ttrpc'),
    debug: join(base, 'debug.sock'),
    opt: join(base, 'opt'),
    runcRoot: join(base, 'runc'),
    log: join(base, 'containerd.log'),
    pidFile: join(base, 'containerd.pid'),
    mountNamespace: join(base, 'mntns'),
    registryHosts: join(base, 'certs.d'),
  };
}
