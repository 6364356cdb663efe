// What an install created, so `capstan uninstall` removes exactly that: files and directories
// that were not there before, the units it enabled, the containerd it reconfigured, the images
// it imported. Kept at /var/lib/capstan/install-manifest.json; every install adds to it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Role } from './layout.js';

export interface InstallManifest {
  version: string;
  role: Role;
  /** Paths (under the root) of files and directories this install created, in creation order. */
  created: string[];
  /** Units enabled (and started) by the install, in start order. */
  units: string[];
  /** The containerd unit the node runs on, and whether it was running before capstan configured it. */
  containerd?: { unit: string; wasActive: boolean; dropIn?: string };
  nodeName?: string;
}

export function readManifest(path: string): InstallManifest | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as InstallManifest;
}

export function writeManifest(path: string, m: InstallManifest): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(m, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/**
 * Records `path` (and each parent up to, not including, an existing directory) as created —
 * call before creating it. What existed before the first install is never recorded.
 */
export function recordCreate(m: InstallManifest, path: string): void {
  const missing: string[] = [];
  for (let p = path; !existsSync(p) && p !== dirname(p); p = dirname(p)) missing.unshift(p);
  for (const p of missing) if (!m.created.includes(p)) m.created.push(p);
}
