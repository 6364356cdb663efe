// What the agent puts where containerd looks: the thin plugin binary in the CNI bin dir
// (also as `loopback` unless the node already has one) and the conflist in the conf dir.
// Both are written to a temporary name and renamed, so containerd never sees half a file.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WIRE_MAGIC } from './cni/wire.js';

const run = promisify(execFile);

export const PLUGIN_NAME = 'capstan';
export const CONFLIST_NAME = '10-capstan.conflist';
export const DEFAULT_SOCKET = '/run/capstan/cni.sock';

export interface ConflistOptions {
  socket: string;
  name?: string;
  mtu?: number;
  /** Only for standalone use: normally the agent takes the block from its Node. */
  podCIDR?: string;
}

export function conflist(o: ConflistOptions): Record<string, unknown> {
  return {
    cniVersion: '1.0.0',
    name: o.name ?? 'capstan',
    plugins: [{
      type: PLUGIN_NAME,
      agentSocket: o.socket,
      ...(o.mtu ? { mtu: o.mtu } : {}),
      ...(o.podCIDR ? { podCIDR: o.podCIDR } : {}),
    }],
  };
}

function atomicWrite(path: string, data: string | Buffer, mode: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

export function writeConflist(confDir: string, o: ConflistOptions): string {
  mkdirSync(confDir, { recursive: true });
  const path = join(confDir, CONFLIST_NAME);
  atomicWrite(path, `${JSON.stringify(conflist(o), null, 2)}\n`, 0o644);
  return path;
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const pluginSource = (): string => join(repoRoot(), 'cni', 'capstan-cni.c');

/**
 * The built plugin (scripts/setup.sh compiles it to build/cni/capstan); compiled here
 * when missing or older than its source, with the same flags.
 */
export async function pluginBinary(opts: { cc?: string } = {}): Promise<string> {
  const out = resolve(repoRoot(), 'build', 'cni', PLUGIN_NAME);
  const src = pluginSource();
  if (existsSync(out) && (!existsSync(src) || statSync(out).mtimeMs >= statSync(src).mtimeMs)) return out;
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  await run(opts.cc ?? 'gcc', ['-static', '-Os', '-s', '-o', tmp, src]);
  renameSync(tmp, out);
  return out;
}

const isOurs = (path: string): boolean => {
  try {
    return readFileSync(path).includes(WIRE_MAGIC);
  } catch { // a file we cannot read is not ours to replace
    return false;
  }
};

/** Read by the plugin when its config names no socket (containerd's loopback call). */
export const SOCKET_PATH_FILE = 'capstan.socket-path';

/**
 * Installs the plugin as `capstan`, and as `loopback` where none exists or the one there is
 * ours, with the agent's socket path beside them.
 */
export async function installPlugin(binDir: string, socket: string, binary?: string): Promise<{ plugin: string; loopback: 'installed' | 'kept' }> {
  const src = binary ?? await pluginBinary();
  mkdirSync(binDir, { recursive: true });
  atomicWrite(join(binDir, SOCKET_PATH_FILE), `${socket}\n`, 0o644);
  const data = readFileSync(src);
  const plugin = join(binDir, PLUGIN_NAME);
  atomicWrite(plugin, data, 0o755);
  const loopback = join(binDir, 'loopback');
  if (!existsSync(loopback) || isOurs(loopback)) {
    atomicWrite(loopback, data, 0o755);
    return { plugin, loopback: 'installed' };
  }
  return { plugin, loopback: 'kept' };
}

