// Volume contents written the way the kubelet's AtomicWriter writes them, so a container
// never sees half an update: the files live in a timestamped directory `..<ts>`, the link
// `..data` names the current one, and each visible top-level name is a link into `..data`.
// An update writes a new timestamped directory, then renames `..data_tmp` over `..data`
// (one atomic step), then fixes the visible links and removes the old directory.
// All of it is asynchronous: the kubelet shares its event loop (in `capstan up`, the API
// server's too) with every other pod, and a secret with many keys is many writes.
import {
  chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile,
} from 'node:fs/promises';
import { dirname, join, normalize, resolve } from 'node:path';

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

const absent = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** Where `..data` points, or undefined when there is no `..data` yet. */
async function currentTarget(dir: string): Promise<string | undefined> {
  try {
    return await readlink(join(dir, dataDirName));
  } catch (e) {
    if (absent(e)) return undefined;
    throw e;
  }
}

/** Every file under `root`, relative to it. */
async function filesUnder(root: string, sub = '', into = new Set<string>()): Promise<Set<string>> {
  for (const e of await readdir(join(root, sub), { withFileTypes: true })) {
    const rel = sub ? join(sub, e.name) : e.name;
    if (e.isDirectory()) await filesUnder(root, rel, into);
    else into.add(rel);
  }
  return into;
}

/** Whether the data directory `data` already holds exactly this payload (content and mode). */
async function holds(data: string, payload: Payload): Promise<boolean> {
  const have = await filesUnder(data);
  if (have.size !== payload.size) return false;
  for (const [p, f] of payload) {
    if (!have.has(p)) return false;
    const full = join(data, p);
    if (((await stat(full)).mode & 0o7777) !== f.mode || !(await readFile(full)).equals(f.content)) return false;
  }
  return true;
}

/** A new timestamped directory holding the payload; returns its name in `dir`. */
async function writeDataDir(dir: string, payload: Payload, now: Date): Promise<string> {
  const tsDir = await mkdtemp(join(dir, timestampedName(now)));
  try {
    // mkdtemp makes it 0700; containers running as another user must be able to walk it.
    await chmod(tsDir, 0o755);
    await Promise.all([...payload].map(async ([p, f]) => {
      const full = join(tsDir, p);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, f.content);
      // Explicitly, whatever the umask made of the create.
      await chmod(full, f.mode);
    }));
  } catch (e) {
    await rm(tsDir, { recursive: true, force: true });
    throw e;
  }
  return tsDir.slice(dir.length + 1);
}

/** Points `..data` at `tsName` in one step: a new link `..data_tmp` renamed over it. */
async function swapData(dir: string, tsName: string): Promise<void> {
  const tmp = join(dir, newDataDirName);
  await rm(tmp, { force: true });
  try {
    await symlink(tsName, tmp);
    await rename(tmp, join(dir, dataDirName));
  } catch (e) {
    await rm(tmp, { force: true });
    await rm(join(dir, tsName), { recursive: true, force: true });
    throw e;
  }
}

/** Each visible top-level name becomes `name → ..data/name`; names the payload no longer has
 *  (and plain files an older kubelet left) go. */
async function fixVisibleNames(dir: string, payload: Payload): Promise<void> {
  const visible = new Set([...payload.keys()].map((p) => p.split('/')[0]));
  for (const name of visible) {
    const link = join(dir, name);
    const target = join(dataDirName, name);
    let current: string | undefined;
    try {
      current = (await lstat(link)).isSymbolicLink() ? await readlink(link) : undefined;
    } catch (e) {
      if (!absent(e)) throw e;
    }
    if (current === target) continue;
    await rm(link, { recursive: true, force: true });
    await symlink(target, link);
  }
  for (const name of await readdir(dir)) {
    if (name.startsWith('..') || visible.has(name)) continue;
    await rm(join(dir, name), { recursive: true, force: true });
  }
}

async function write(dir: string, payload: Payload, now: Date): Promise<boolean> {
  await mkdir(dir, { recursive: true });
  const oldTarget = await currentTarget(dir);
  if (oldTarget !== undefined && await holds(join(dir, dataDirName), payload).catch((e) => {
    if (absent(e)) return false; // `..data` names a directory that is gone: write afresh
    throw e;
  })) return false;

  const tsName = await writeDataDir(dir, payload, now);
  await swapData(dir, tsName);
  await fixVisibleNames(dir, payload);
  if (oldTarget && oldTarget !== tsName) await rm(join(dir, oldTarget), { recursive: true, force: true });
  return true;
}

/** The last write queued per volume directory: writes to one directory run one after the
 *  other (as upstream's operation executor runs one operation per volume at a time), so
 *  the last one asked for is what stays, and no write removes a directory another is
 *  about to point `..data` at. */
const queued = new Map<string, Promise<boolean>>();

/** Makes `dir` show exactly `payload`; resolves to whether anything was written. A bad
 *  payload path rejects before anything is touched. */
export function writePayload(dir: string, payload: Payload, now: Date = new Date()): Promise<boolean> {
  const clean: Payload = new Map();
  try {
    for (const [p, f] of payload) clean.set(checkPayloadPath(p), f);
  } catch (e) {
    return Promise.reject(e);
  }
  const key = resolve(dir);
  const before = queued.get(key);
  const run = (before ?? Promise.resolve(false)).then(() => write(dir, clean, now), () => write(dir, clean, now));
  queued.set(key, run);
  const forget = () => { if (queued.get(key) === run) queued.delete(key); };
  run.then(forget, forget);
  return run;
}
