// Network namespaces for kernel tests: created with a random capstan-t- name, removed in
// t.teardown whatever happens. Nothing here touches the host's own namespace.
import { randomBytes } from 'node:crypto';
import { execa, type ResultPromise } from 'execa';

export interface Namespace {
  name: string;
  path: string;
}

type Teardown = { teardown(fn: () => unknown): void };

export const isRoot = process.getuid?.() === 0;

export async function newNamespace(t: Teardown, label: string): Promise<Namespace> {
  const name = `capstan-t-${label}-${randomBytes(3).toString('hex')}`;
  await execa('ip', ['netns', 'add', name]);
  t.teardown(() => execa('ip', ['netns', 'del', name], { reject: false }));
  await execa('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  return { name, path: `/run/netns/${name}` };
}

/** Runs a command inside the namespace (nsenter keeps /sys and cgroups untouched). */
export function inNs(ns: Namespace, cmd: string, args: string[]) {
  return execa('nsenter', [`--net=${ns.path}`, cmd, ...args], { reject: false });
}

export async function ping(ns: Namespace, address: string): Promise<boolean> {
  // Two tries: the first may be spent on ARP/neighbour resolution.
  const r = await inNs(ns, 'ping', ['-c', '2', '-i', '0.2', '-W', '2', address]);
  return r.exitCode === 0;
}

/** Starts a process in the namespace and kills it (by its own pid) at teardown. */
export function spawnInNs(t: Teardown, ns: Namespace, cmd: string, args: string[]): ResultPromise {
  const child = execa('nsenter', [`--net=${ns.path}`, cmd, ...args], { reject: false });
  t.teardown(() => {
    child.kill('SIGKILL');
    return child.catch(() => undefined);
  });
  return child;
}

export const PYTHON = '/usr/bin/python3';
