// capstan's own images. No registry is reachable from a capstan node, so the sandbox
// (pause) image, a small utility image and a Node.js image are built locally from what the
// node has: the pause program compiled from pause.c, Debian's busybox-static, and the host's
// own node binary with the shared libraries it links.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ociArchive, type OCIArchive } from './oci.js';
import type { TarEntry } from './tar.js';
import { tar } from './tar.js';

const run = promisify(execFile);

export const PAUSE_IMAGE = 'localhost/capstan/pause:1';
export const BUSYBOX_IMAGE = 'localhost/capstan/busybox:1';
export const NODE_IMAGE = 'localhost/capstan/node:1';

export interface BuiltImage extends OCIArchive {
  /** Full reference, e.g. localhost/capstan/pause:1. */
  name: string;
}

const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const byPath = (a: TarEntry, b: TarEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** pause.c and wget.sh ship next to this module in the source tree (src/kubelet/images/). */
function sourceFile(name: string): string {
  for (const rel of [`./${name}`, `../../../../src/kubelet/images/${name}`]) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new Error(`images: ${name} not found`);
}

export function pauseSource(): string {
  return sourceFile('pause.c');
}

/** Compiles pause.c statically; the same compiler and source give the same bytes. */
export async function compilePause(cc = 'gcc'): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-pause-'));
  try {
    const out = join(dir, 'pause');
    await run(cc, ['-static', '-Os', '-s', '-o', out, pauseSource()]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** localhost/capstan/pause:1 — /pause as entrypoint, run as 65535 like upstream's pause. */
export async function buildPauseImage(opts: { cc?: string } = {}): Promise<BuiltImage> {
  const layer = tar([{ type: 'file', path: 'pause', data: await compilePause(opts.cc), mode: 0o755 }]);
  const name = PAUSE_IMAGE;
  return { name, ...ociArchive(layer, { Entrypoint: ['/pause'], Env: [PATH_ENV], User: '65535:65535' }) };
}

/**
 * localhost/capstan/busybox:1 — /bin/busybox with a symlink for every applet it lists
 * (sh, httpd, nc, sleep, cat, ...), a minimal /etc/passwd and /etc/group, an
 * /etc/nsswitch.conf, and an empty /tmp. `sh` is the default command. Names resolve without
 * anything loaded at run time: glibc ≥ 2.34 links its files and dns NSS modules into the static
 * binary. /usr/bin/wget is wget.sh, which gives the applet the -T/--timeout Debian's build lacks.
 */
export async function buildBusyboxImage(opts: { busybox?: string } = {}): Promise<BuiltImage> {
  const bin = opts.busybox ?? '/bin/busybox';
  const { stdout } = await run(bin, ['--list-full']);
  const applets = stdout.split('\n').map((s) => s.trim()).filter((s) => s.includes('/') && s !== 'bin/busybox');
  const entries: TarEntry[] = [
    ...baseEntries(['bin', 'sbin', 'usr/bin', 'usr/sbin', 'var', 'var/www']),
    { type: 'file', path: 'bin/busybox', data: readFileSync(bin), mode: 0o755 },
    { type: 'file', path: 'usr/bin/wget', data: readFileSync(sourceFile('wget.sh')), mode: 0o755 },
    ...applets.filter((path) => path !== 'usr/bin/wget').map((path): TarEntry => ({ type: 'symlink', path, target: '/bin/busybox' })),
  ];
  const layer = tar(entries.sort(byPath));
  const name = BUSYBOX_IMAGE;
  return { name, ...ociArchive(layer, { Cmd: ['sh'], Env: [PATH_ENV] }) };
}

/** The root file system every image but pause shares: users, name service order, /tmp. */
function baseEntries(dirs: string[]): TarEntry[] {
  return [
    ...['dev', 'etc', 'home', 'proc', 'sys', 'usr', ...dirs].map((path): TarEntry => ({ type: 'dir', path })),
    { type: 'dir', path: 'root', mode: 0o700 },
    { type: 'dir', path: 'tmp', mode: 0o1777 },
    { type: 'file', path: 'etc/passwd', data: Buffer.from('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n') },
    { type: 'file', path: 'etc/group', data: Buffer.from('root:x:0:\nnobody:x:65534:\n') },
    // The kubelet's /etc/hosts (hostAliases, the pod's own name) before cluster DNS, as in
    // upstream's images, rather than whatever order the libc defaults to.
    { type: 'file', path: 'etc/nsswitch.conf', data: Buffer.from('passwd: files\ngroup: files\nhosts: files dns\n') },
  ];
}

/** The shared objects `ldd` says `binary` loads, the dynamic loader among them (absolute paths). */
export async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await run('ldd', [binary]);
  const libs: string[] = [];
  for (const line of stdout.split('\n')) {
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
    const m = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (m) libs.push(m[1]);
    else if (line.includes('not found')) throw new Error(`images: ${binary} needs a library the host lacks: ${line.trim()}`);
  }
  return libs;
}

/** Every parent directory of `paths`, without the root. */
function parents(paths: string[]): string[] {
  const dirs = new Set<string>();
  for (const p of paths) {
    const parts = p.replace(/^\/+/, '').split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs];
}

/**
 * localhost/capstan/node:1 — the host's node as /usr/local/bin/node (stripped of its debug
 * symbols, which are most of its size), the shared libraries ldd lists at the paths the
 * binary asks for (the loader's default directories hold them, so no ld.so.cache is needed),
 * the base files busybox's image has, and `node` as the default command. No shell: it runs
 * JavaScript only, as in-cluster clients and operators need.
 */
export async function buildNodeImage(opts: { node?: string; strip?: string } = {}): Promise<BuiltImage> {
  const bin = opts.node ?? process.execPath;
  const dir = mkdtempSync(join(tmpdir(), 'capstan-node-image-'));
  let node: Buffer;
  try {
    const out = join(dir, 'node');
    await run(opts.strip ?? 'strip', ['-o', out, bin]);
    node = readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const libs = await sharedLibraries(bin);
  const files: TarEntry[] = [
    { type: 'file', path: 'usr/local/bin/node', data: node, mode: 0o755 },
    // realpath: the loader's name is a symlink on the host; in the image it is the file itself.
    ...libs.map((lib): TarEntry => ({ type: 'file', path: lib.slice(1), data: readFileSync(realpathSync(lib)), mode: 0o755 })),
  ];
  const dirs = parents(files.map((f) => f.path)).filter((d) => !['usr', 'usr/local'].includes(d));
  const entries = [...baseEntries(['usr/local', ...dirs]), ...files];
  const layer = tar(entries.sort(byPath));
  return { name: NODE_IMAGE, ...ociArchive(layer, { Cmd: ['node'], Env: [PATH_ENV] }) };
}

export const builtinImages: Record<string, () => Promise<BuiltImage>> = {
  [PAUSE_IMAGE]: () => buildPauseImage(),
  [BUSYBOX_IMAGE]: () => buildBusyboxImage(),
  [NODE_IMAGE]: () => buildNodeImage(),
};
