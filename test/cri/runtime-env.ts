// A real containerd for tests: a fresh network namespace with loopback up, a private
// containerd inside it (pinned private mount namespace), CNI ptp + host-local on a
// per-test subnet, capstan's built-in images imported, and a CRI client. Everything is
// removed at teardown, also when the test fails. Needs root, containerd, runc, ctr, gcc,
// busybox-static and containernetworking-plugins.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CRIClient, type CRIMethod } from '../../cri/index.js';
import { startContainerd, type ContainerdHandle, type StartContainerdOptions } from '../../src/kubelet/containerd/index.js';
import { ensureBuiltinImages, type ImportResult } from '../../src/kubelet/images/index.js';

const run = promisify(execFile);

export const CNI_BIN_DIRS = ['/usr/lib/cni', '/opt/cni/bin'];

/**
 * 'needs root' when the real-containerd tests cannot run as this user (a reason to skip), or
 * undefined when they can. A missing tool is no reason to skip — scripts/setup.sh installs
 * every one — so it throws, and the test file fails saying what is missing.
 */
export function runtimeUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root';
  const missing: string[] = [];
  for (const bin of ['containerd', 'runc', 'ctr', 'gcc', 'nsenter', 'unshare', 'ip']) {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    } catch {
      missing.push(bin);
    }
  }
  if (!existsSync('/bin/busybox')) missing.push('/bin/busybox (busybox-static)');
  if (!CNI_BIN_DIRS.some((d) => existsSync(join(d, 'ptp')))) missing.push('ptp (containernetworking-plugins)');
  if (missing.length) throw new Error(`not installed: ${missing.join(', ')}; scripts/setup.sh installs them`);
  return undefined;
}

export interface CallStats { samples: Map<CRIMethod, number[]> }

export interface RuntimeEnv {
  dir: string;
  netns: string;
  containerd: ContainerdHandle;
  /** What containerd was started with (to start another daemon on the same root). */
  options: StartContainerdOptions;
  client: CRIClient;
  images: ImportResult[];
  /** cgroupfs parent every pod in the test should live under; removed at teardown. */
  cgroupParent: string;
  /** The pods' subnet (host-local range). */
  subnet: string;
  /** Wall times of every CRI call made through `client`, by method. */
  stats: CallStats;
  /** Tear down now (idempotent; teardown calls it too). */
  destroy(): Promise<void>;
}

interface Teardown { teardown(fn: () => unknown): void }

export interface RuntimeEnvOptions {
  subnetOctet?: number;
  /** Private mount namespace for containerd (default true). */
  isolateMounts?: boolean;
  /** Built-in images to import (default all). */
  images?: string[];
}

export async function startRuntimeEnv(t: Teardown, opts: RuntimeEnvOptions = {}): Promise<RuntimeEnv> {
  const rand = Math.random().toString(36).slice(2, 8);
  const netns = `capstan-cri-${rand}`;
  // Short: containerd's socket paths live under it.
  const dir = mkdtempSync(`/tmp/ccri-${rand}-`);
  const cgroupParent = `/capstan-cri-${rand}`;
  const octet = opts.subnetOctet ?? 100 + Math.floor(Math.random() * 100);
  const subnet = `10.88.${octet}.0/24`;
  const cniBinDir = CNI_BIN_DIRS.find((d) => existsSync(join(d, 'ptp')))!;
  const cniConfDir = join(dir, 'net.d');
  mkdirSync(cniConfDir);
  writeFileSync(join(cniConfDir, '10-test.conflist'), JSON.stringify({
    cniVersion: '0.4.0',
    name: 'capstan-test',
    plugins: [{
      type: 'ptp',
      ipMasq: false,
      ipam: { type: 'host-local', ranges: [[{ subnet }]], dataDir: join(dir, 'ipam') },
    }],
  }));

  let containerd: ContainerdHandle | undefined;
  let client: CRIClient | undefined;
  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    client?.close();
    await containerd?.destroy({ cgroupParents: [cgroupParent] }).catch(() => undefined);
    await run('ip', ['netns', 'del', netns]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  t.teardown(destroy);

  await run('ip', ['netns', 'add', netns]);
  await run('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
  const options: StartContainerdOptions = { root: join(dir, 'c'), netns, isolateMounts: opts.isolateMounts ?? true, cniBinDir, cniConfDir };
  containerd = await startContainerd(options);
  const stats: CallStats = { samples: new Map() };
  client = new CRIClient({
    socket: containerd.socket,
    observe: (m, ms) => { const s = stats.samples.get(m) ?? []; s.push(ms); stats.samples.set(m, s); },
  });
  const images = await ensureBuiltinImages(containerd.socket, opts.images);
  return { dir, netns, containerd, options, client, images, cgroupParent, subnet, stats, destroy };
}

/** "Method: p50 x ms (n)" lines for a test comment or a report. */
export function formatStats(stats: CallStats): string {
  return [...stats.samples.entries()].map(([m, s]) => {
    const sorted = [...s].sort((a, b) => a - b);
    const p50 = sorted[Math.floor((sorted.length - 1) / 2)];
    return `${m}: p50 ${p50} ms, max ${sorted[sorted.length - 1]} ms (n=${s.length})`;
  }).join('\n');
}
