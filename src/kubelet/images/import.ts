// Importing locally built images into containerd's k8s.io namespace, where CRI sees them.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CRIClient } from '../../../cri/index.js';
import { builtinImages, type BuiltImage } from './builtin.js';

const run = promisify(execFile);

export interface ImportOptions {
  /** `ctr` executable; default from PATH. */
  ctr?: string;
  /** containerd namespace; CRI uses k8s.io. */
  namespace?: string;
  /** A CRI client on the same socket to reuse (else one is opened and closed). */
  client?: CRIClient;
}

export interface ImportResult {
  name: string;
  /** The image id CRI reports (the config digest). */
  id: string;
  /** False when the runtime already had this name with the same digest. */
  imported: boolean;
}

/**
 * Makes `image` available under its name through CRI on `socket`. Idempotent: when
 * ImageStatus already reports the same config digest nothing is done; a different digest
 * under the name is replaced. Import goes through `ctr images import`, which also unpacks
 * the layer into the default snapshotter.
 */
export async function importImage(socket: string, image: BuiltImage, opts: ImportOptions = {}): Promise<ImportResult> {
  const client = opts.client ?? new CRIClient({ socket });
  try {
    const before = await client.imageStatus(image.name);
    if (before.image?.id === image.configDigest) return { name: image.name, id: image.configDigest, imported: false };
    const dir = mkdtempSync(join(tmpdir(), 'capstan-image-'));
    try {
      const file = join(dir, 'image.tar');
      writeFileSync(file, image.archive);
      await ctrImport(socket, file, { ...opts, indexName: image.name });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const after = await client.imageStatus(image.name);
    if (after.image?.id !== image.configDigest) {
      throw new Error(`images: ${image.name} imported but CRI reports ${after.image?.id ?? 'no image'}, want ${image.configDigest}`);
    }
    return { name: image.name, id: image.configDigest, imported: true };
  } finally {
    if (!opts.client) client.close();
  }
}

export interface ArchiveImportOptions extends ImportOptions {
  /** Name for an OCI layout's index (ctr --index-name), for archives whose index names no image. */
  indexName?: string;
  /** Repository for OCI layouts whose ref.name annotations are only tags (ctr --base-name). */
  baseName?: string;
}

/** The names `ctr images import` reported unpacking ("unpacking NAME (sha256:…)...done"). */
async function ctrImport(socket: string, file: string, opts: ArchiveImportOptions): Promise<string[]> {
  const { stdout } = await run(opts.ctr ?? 'ctr', [
    '--address', socket, '--namespace', opts.namespace ?? 'k8s.io', 'images', 'import',
    ...(opts.indexName ? ['--index-name', opts.indexName] : []), ...(opts.baseName ? ['--base-name', opts.baseName] : []),
    file,
  ], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
  return [...stdout.matchAll(/^unpacking (\S+) \(sha256:[0-9a-f]+\)/gm)].map((m) => m[1]);
}

/**
 * Imports an image archive from a file — an OCI image layout or a `docker save`
 * (docker-archive) tar — into the runtime's k8s.io namespace, unpacked, as an air-gapped
 * node needs it. Returns every image name the archive gave, with the id CRI now reports.
 */
export async function importArchive(socket: string, file: string, opts: ArchiveImportOptions = {}): Promise<ImportResult[]> {
  const client = opts.client ?? new CRIClient({ socket });
  try {
    const names = await ctrImport(socket, file, opts);
    if (!names.length) throw new Error(`images: ${file} holds no image name; give one with --name`);
    const results: ImportResult[] = [];
    for (const name of names) {
      const st = await client.imageStatus(name);
      if (!st.image) throw new Error(`images: ${name} imported but CRI does not report it`);
      results.push({ name, id: st.image.id, imported: true });
    }
    return results;
  } finally {
    if (!opts.client) client.close();
  }
}

/** Builds and imports capstan's built-in images (default: pause and busybox). */
export async function ensureBuiltinImages(socket: string, names: string[] = Object.keys(builtinImages), opts: ImportOptions = {}): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const name of names) {
    const build = builtinImages[name];
    if (!build) throw new Error(`images: no built-in image ${name}`);
    results.push(await importImage(socket, await build(), opts));
  }
  return results;
}
