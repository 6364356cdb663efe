// Prerequisites suites declare, each saying what is missing and how to get it.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { runtimeUnavailable } from '../../test/cri/runtime-env.js';
import type { Requirement } from './suite.js';

export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try { accessSync(join(dir, command), constants.X_OK); return true; } catch { return false; }
  });
}

export const root: Requirement = () => (process.getuid?.() === 0 ? undefined : 'needs root (network namespaces, nftables)');

/** A command on PATH, from the Debian package `pkg`. */
export const command = (name: string, pkg: string): Requirement => () =>
  (onPath(name) ? undefined : `${name} is missing (Debian: apt-get install ${pkg}; scripts/setup.sh lists it)`);

/** A private containerd can be started (root, containerd, runc, busybox, the CNI plugins). */
export const containerd: Requirement = () => {
  const why = runtimeUnavailable();
  return why ? `containerd: ${why}` : undefined;
};
