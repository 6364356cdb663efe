// The lab's state file: everything `lab up` created, written before each thing is created
// (a crash between recording and creating leaves an entry `lab down` finds absent — fine),
// so `lab down` can remove it all after any crash.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabTopology } from './topology.js';

export interface LabProcess {
  name: string;
  pid: number;
  netns: string;
  log: string;
  /** /proc/<pid>/stat start time: a recycled PID is never signalled. */
  start: string | null;
}

export interface LabState {
  version: 1;
  dir: string;
  topology: LabTopology;
  namespaces: string[];
  processes: LabProcess[];
  cgroups: string[];
  /** The admin kubeconfig for the host: the API server on a loopback address of the host's namespace. */
  kubeconfig?: string;
  /** The same credentials naming the API server's lab address, for what runs inside the lab (the nodes). */
  internalKubeconfig?: string;
  hostServer?: string;
}

export const STATE_FILE = 'lab.json';

export function statePath(dir: string): string {
  return join(dir, STATE_FILE);
}

export function readState(dir: string): LabState | null {
  const p = statePath(dir);
  if (!existsSync(p)) return null;
  return JSON.parse(readFileSync(p, 'utf8')) as LabState;
}

export function writeState(s: LabState): void {
  const p = statePath(s.dir);
  writeFileSync(`${p}.tmp`, `${JSON.stringify(s, null, 2)}\n`);
  renameSync(`${p}.tmp`, p);
}
