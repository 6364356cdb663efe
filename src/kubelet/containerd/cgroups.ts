// containerd and runc remove a container's own cgroup, never the parents the kubelet asked
// for (e.g. /kubepods/besteffort/pod<uid>): removing those is the caller's job.
import { readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** The mount points of every cgroup hierarchy (v1 controllers, or the v2 root). */
export function cgroupHierarchies(root = CGROUP_ROOT): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch { // no cgroup filesystem mounted here: nothing to walk
    return [];
  }
  if (entries.includes('cgroup.controllers')) return [root]; // unified (v2)
  return entries.map((e) => join(root, e)).filter((d) => {
    try {
      return statSync(d).isDirectory() && statSync(join(d, 'cgroup.procs')).isFile();
    } catch { // not a hierarchy (a plain file, or vanished): skip it
      return false;
    }
  });
}

function rmdirTree(dir: string): string[] {
  const busy: string[] = [];
  let children: string[];
  try {
    children = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch { // removed meanwhile: nothing left busy
    return busy;
  }
  for (const c of children) busy.push(...rmdirTree(join(dir, c)));
  try {
    rmdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') busy.push(dir);
  }
  return busy;
}

/**
 * Removes the cgroup `path` (cgroupfs syntax, e.g. "/kubepods/pod123") and everything under
 * it in every hierarchy, children first. Returns the directories that could not be
 * removed (EBUSY: a process still lives there); an absent path is not an error.
 */
export function removeCgroup(path: string, root = CGROUP_ROOT): string[] {
  const rel = path.replace(/^\/+/, '');
  if (!rel || rel.split('/').includes('..')) throw new Error(`refusing to remove cgroup ${JSON.stringify(path)}`);
  return cgroupHierarchies(root).flatMap((h) => rmdirTree(join(h, rel)));
}

/** Every process in the cgroup `path` or below it, in any hierarchy (an absent path has none). */
export function cgroupPids(path: string, root = CGROUP_ROOT): number[] {
  const rel = path.replace(/^\/+/, '');
  const out = new Set<number>();
  const walk = (dir: string) => {
    try {
      for (const n of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').map(Number)) if (n > 0) out.add(n);
      for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(join(dir, e.name));
    } catch { /* absent, or gone meanwhile */ }
  };
  for (const h of cgroupHierarchies(root)) walk(join(h, rel));
  return [...out];
}
