// Mount points under a directory, read from this process's mount namespace.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Mount points at or under `dir`, deepest first (the order to unmount them in). */
export function mountsUnder(dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
    .map((l) => l.split(' ')[4]?.replace(/\\040/g, ' '))
    .filter((m): m is string => !!m && (m === dir || m.startsWith(prefix)))
    .sort((a, b) => b.length - a.length);
}

/** Lazily unmounts everything at or under `dir`, deepest first; returns what is still mounted. */
export function unmountUnder(dir: string): string[] {
  for (const m of mountsUnder(dir)) {
    try { execFileSync('umount', ['-l', m], { stdio: 'ignore' }); } catch { /* reported below if it stays */ }
  }
  return mountsUnder(dir);
}
