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
      await run(opts.ctr ?? 'ctr', [
        '--address', socket, '--namespace', opts.namespace ?? 'k8s.io',
        'images', 'import', '--index-name', image.name, file,
      ], { timeout: 120_000 });
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
