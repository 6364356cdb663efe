// Pod volumes on the node's disk, under <root>/pods/<uid>/volumes/<plugin>/<name>:
// emptyDir, configMap and secret (files from keys or items, with modes), hostPath. A
// configMap/secret volume is rewritten on every sync, so updates reach running containers
// (the directory is bind-mounted; files are replaced by rename, stale keys removed).
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { ObjectSource } from './env.js';
import type { Pod } from '../api/kinds.js';
import type { KeyToPath } from 'kubernetes-types/core/v1.js';

/** A volume that cannot be set up yet (event FailedMount). */
export class MountError extends Error {
  constructor(readonly volume: string, message: string) {
    super(message);
  }
}

export const podDir = (root: string, uid: string) => join(root, 'pods', uid);
export const volumesDir = (root: string, uid: string) => join(podDir(root, uid), 'volumes');

interface FileSpec { path: string; content: Buffer; mode: number }

function safeRelative(p: string): string {
  const n = normalize(p);
  if (n.startsWith('..') || n.startsWith('/')) throw new Error(`invalid path ${JSON.stringify(p)}`);
  return n;
}

/** Makes `dir` hold exactly `files` (plus their directories); writes only what changed. */
function syncFiles(dir: string, files: FileSpec[]): void {
  mkdirSync(dir, { recursive: true });
  const want = new Set<string>();
  for (const f of files) {
    const rel = safeRelative(f.path);
    want.add(rel);
    const full = join(dir, rel);
    mkdirSync(dirname(full), { recursive: true });
    const tmp = join(dirname(full), `.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`);
    writeFileSync(tmp, f.content, { mode: f.mode });
    chmodSync(tmp, f.mode);
    renameSync(tmp, full);
  }
  const prune = (sub: string): boolean => {
    let keep = false;
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? join(sub, e.name) : e.name;
      if (e.isDirectory()) {
        if (prune(rel)) keep = true;
        else rmSync(join(dir, rel), { recursive: true, force: true });
      } else if (want.has(rel)) keep = true;
      else rmSync(join(dir, rel), { force: true });
    }
    return keep;
  };
  prune('');
}

function keyFiles(data: Record<string, Buffer>, items: KeyToPath[] | undefined, defaultMode: number, what: string): FileSpec[] {
  if (!items?.length) return Object.entries(data).map(([k, v]) => ({ path: k, content: v, mode: defaultMode }));
  return items.map((it) => {
    const content = data[it.key];
    if (!content) throw new Error(`configmap references non-existent config key: ${it.key}`.replace('configmap', what));
    return { path: it.path, content, mode: typeof it.mode === 'number' ? it.mode : defaultMode };
  });
}

export interface VolumeContext {
  root: string;
  pod: Pod;
  objects: ObjectSource;
}

/** Sets up every volume of the pod; returns volume name → host path. Throws MountError. */
export async function setUpVolumes(ctx: VolumeContext): Promise<Map<string, string>> {
  const uid = ctx.pod.metadata.uid as string;
  const ns = ctx.pod.metadata.namespace ?? 'default';
  const base = volumesDir(ctx.root, uid);
  const out = new Map<string, string>();
  for (const v of ctx.pod.spec?.volumes ?? []) {
    const name: string = v.name;
    try {
      if (v.emptyDir) {
        const dir = join(base, 'kubernetes.io~empty-dir', name);
        if (!existsSync(dir)) {
          mkdirSync(dir, { recursive: true });
          chmodSync(dir, 0o777);
        }
        out.set(name, dir);
      } else if (v.configMap) {
        const dir = join(base, 'kubernetes.io~configmap', name);
        const cm = await ctx.objects.configMap(ns, v.configMap.name!);
        if (!cm && !v.configMap.optional) throw new MountError(name, `configmap "${v.configMap.name}" not found`);
        const data: Record<string, Buffer> = {};
        for (const [k, val] of Object.entries((cm?.data ?? {}) as Record<string, string>)) data[k] = Buffer.from(val);
        for (const [k, val] of Object.entries((cm?.binaryData ?? {}) as Record<string, string>)) data[k] = Buffer.from(val, 'base64');
        syncFiles(dir, keyFiles(data, v.configMap.items, v.configMap.defaultMode ?? 0o644, 'configmap'));
        out.set(name, dir);
      } else if (v.secret) {
        const dir = join(base, 'kubernetes.io~secret', name);
        const s = await ctx.objects.secret(ns, v.secret.secretName!);
        if (!s && !v.secret.optional) throw new MountError(name, `secret "${v.secret.secretName}" not found`);
        const data: Record<string, Buffer> = {};
        for (const [k, val] of Object.entries((s?.data ?? {}) as Record<string, string>)) data[k] = Buffer.from(val, 'base64');
        syncFiles(dir, keyFiles(data, v.secret.items, v.secret.defaultMode ?? 0o644, 'secret'));
        out.set(name, dir);
      } else if (v.hostPath) {
        const path: string = v.hostPath.path;
        const type: string = v.hostPath.type ?? '';
        if (type === 'DirectoryOrCreate' && !existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o755 });
        else if (type === 'FileOrCreate' && !existsSync(path)) {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, '', { mode: 0o644 });
        } else if (type === 'Directory' && !(existsSync(path) && statSync(path).isDirectory())) {
          throw new MountError(name, `hostPath type check failed: ${path} is not a directory`);
        } else if (type === 'File' && !(existsSync(path) && statSync(path).isFile())) {
          throw new MountError(name, `hostPath type check failed: ${path} is not a file`);
        }
        out.set(name, path);
      } else {
        throw new MountError(name, `volume type not supported by capstan's kubelet: ${Object.keys(v).filter((k) => k !== 'name').join(',')}`);
      }
    } catch (e) {
      if (e instanceof MountError) throw e;
      throw new MountError(name, (e as Error).message);
    }
  }
  return out;
}

/** Removes the pod's directory (volumes, hosts file) once its containers are gone. */
export function removePodDir(root: string, uid: string): void {
  rmSync(podDir(root, uid), { recursive: true, force: true });
}
