// Volume contents written the way the kubelet's AtomicWriter writes them, so a container
// never sees half an update: the files live in a timestamped directory `..<ts>`, the link
// `..data` names the current one, and each visible top-level name is a link into `..data`.
// An update writes a new timestamped directory, then renames `..data_tmp` over `..data`
// (one atomic step), then fixes the visible links and removes the old directory.
import {
  chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync,
  symlinkSync, writeFileSync,
} from 'node:fs';
import { dirname, join, normalize } from 'node:path';

export interface FileProjection { content: Buffer; mode: number }
/** Relative path → content and mode. */
export type Payload = Map<string, FileProjection>;

const dataDirName = '..data';
const newDataDirName = '..data_tmp';

/** A payload path as upstream's validatePath allows it: relative, no `..` element, ≤ 4096. */
export function checkPayloadPath(p: string): string {
  if (!p) throw new Error('invalid path: must not be empty');
  if (p.length > 4096) throw new Error(`invalid path: must be less than or equal to 4096 characters`);
  if (p.startsWith('/')) throw new Error(`invalid path: must be relative path: ${p}`);
  if (p.split('/').includes('..')) throw new Error(`invalid path: must not contain '..': ${p}`);
  if (p.startsWith('..')) throw new Error(`invalid path: must not start with '..': ${p}`);
  return normalize(p);
}

function timestampedName(now: Date): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `..${now.getUTCFullYear()}_${pad(now.getUTCMonth() + 1)}_${pad(now.getUTCDate())}_${pad(now.getUTCHours())}_${pad(now.getUTCMinutes())}_${pad(now.getUTCSeconds())}.`;
}

/** Whether `..data` already holds exactly this payload (content and mode). */
function unchanged(dir: string, payload: Payload): boolean {
  const data = join(dir, dataDirName);
  if (!existsSync(data)) return false;
  const have = new Set<string>();
  const walk = (sub: string) => {
    for (const e of readdirSync(join(data, sub), { withFileTypes: true })) {
      const rel = sub ? join(sub, e.name) : e.name;
      if (e.isDirectory()) walk(rel);
      else have.add(rel);
    }
  };
  walk('');
  if (have.size !== payload.size) return false;
  for (const [p, f] of payload) {
    if (!have.has(p)) return false;
    const full = join(data, p);
    if ((statSync(full).mode & 0o7777) !== f.mode || !readFileSync(full).equals(f.content)) return false;
  }
  return true;
}

/** Makes `dir` show exactly `payload`; returns whether anything was written. */
export function writePayload(dir: string, payload: Payload, now: Date = new Date()): boolean {
  const clean: Payload = new Map();
  for (const [p, f] of payload) clean.set(checkPayloadPath(p), f);
  mkdirSync(dir, { recursive: true });
  if (unchanged(dir, clean)) return false;

  const oldTarget = existsSync(join(dir, dataDirName)) ? readlinkSync(join(dir, dataDirName)) : undefined;
  const tsDir = mkdtempSync(join(dir, timestampedName(now)));
  // mkdtemp makes it 0700; containers running as another user must be able to walk it.
  chmodSync(tsDir, 0o755);
  for (const [p, f] of clean) {
    const full = join(tsDir, p);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, f.content);
    chmodSync(full, f.mode);
  }
  const tsName = tsDir.slice(dir.length + 1);
  rmSync(join(dir, newDataDirName), { force: true });
  symlinkSync(tsName, join(dir, newDataDirName));
  renameSync(join(dir, newDataDirName), join(dir, dataDirName));

  const visible = new Set([...clean.keys()].map((p) => p.split('/')[0]));
  for (const name of visible) {
    const link = join(dir, name);
    const target = join(dataDirName, name);
    let current: string | undefined;
    try {
      current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : undefined;
      if (current !== target) rmSync(link, { recursive: true, force: true });
    } catch { /* absent */ }
    if (current !== target) symlinkSync(target, link);
  }
  // What the old payload showed and the new one does not (also plain files of older kubelets).
  for (const name of readdirSync(dir)) {
    if (name.startsWith('..') || visible.has(name)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
  if (oldTarget && oldTarget !== tsName) rmSync(join(dir, oldTarget), { recursive: true, force: true });
  return true;
}
