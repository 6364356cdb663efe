// A pinned private mount namespace for one containerd instance.
//
// containerd 1.6 puts shim sockets under /run/containerd/s whatever its config says, and
// its container rootfs and netns mounts would otherwise land in the host's namespace.
// Inside the pinned namespace /run/containerd is a private tmpfs. The namespace is pinned
// by a bind mount on a file, so a restarted containerd re-enters the same namespace and
// still reaches its shims. Propagation is slave: mounts the host makes later (kubelet
// volumes) still show up inside.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SHIM_RUN_DIR = '/run/containerd';

export async function isPinned(file: string): Promise<boolean> {
  try {
    await run('findmnt', ['-n', '--mountpoint', file]);
    return true;
  } catch { // findmnt exits 1 for a path that is not a mount point
    return false;
  }
}

/** Creates the namespace pinned at `file` (no-op if it already is). */
export async function pinMountNamespace(file: string): Promise<void> {
  if (await isPinned(file)) return;
  mkdirSync(SHIM_RUN_DIR, { recursive: true }); // the mount point, in the host namespace
  writeFileSync(file, '');
  await run('unshare', [`--mount=${file}`, '--propagation', 'slave', 'true']);
  await run('nsenter', [`--mount=${file}`, 'mount', '-t', 'tmpfs', '-o', 'mode=0711', 'capstan-containerd', SHIM_RUN_DIR]);
}

/** Drops the pin; the namespace (and every mount in it) goes once no process is left in it. */
export async function releaseMountNamespace(file: string): Promise<void> {
  if (await isPinned(file)) await run('umount', ['-l', file]);
  rmSync(file, { force: true });
}
