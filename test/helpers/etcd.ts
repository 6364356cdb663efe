// Starts a real etcd (Debian etcd-server 3.4, /usr/bin/etcd) for tests: one member or a
// three-member cluster on loopback, data in a temp dir, fsync left on. Slow disks stall fsync
// for seconds here, so the timeouts are generous and elections tolerant.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const ETCD_BINARY = process.env.CAPSTAN_ETCD_BINARY ?? '/usr/bin/etcd';

export interface StartEtcdOptions {
  /** 1 (default) or 3. */
  members?: 1 | 3;
  /** How long to wait for every member to report healthy. Default 90 s. */
  startTimeoutMs?: number;
}

export interface EtcdMember {
  name: string;
  clientUrl: string;
  pid: number;
  logFile: string;
}

export interface EtcdCluster {
  members: EtcdMember[];
  /** `http://127.0.0.1:port` per member. */
  endpoints: string[];
  /** `etcd://127.0.0.1:p1,127.0.0.1:p2,...`, what openStore() takes. */
  url: string;
  dataDir: string;
  /** Kills every member by PID and removes the data dir. Safe to call twice. */
  stop(): Promise<void>;
  /** Kills one member (SIGKILL), keeping its data; for failover tests. */
  killMember(index: number): Promise<void>;
  /** Restarts a killed member on its old ports and data, and waits until it is healthy. */
  restartMember(index: number): Promise<void>;
}

interface Teardownable {
  teardown(fn: () => unknown): void;
}

/** Starts etcd and stops it when the test `t` ends, also when it fails. */
export async function startEtcdFor(t: Teardownable, opts: StartEtcdOptions = {}): Promise<EtcdCluster> {
  const cluster = await startEtcd(opts);
  t.teardown(() => cluster.stop());
  return cluster;
}

/** Starts etcd; the caller must stop() it. Retries when a picked port was taken meanwhile. */
export async function startEtcd(opts: StartEtcdOptions = {}): Promise<EtcdCluster> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(opts.members ?? 1, opts.startTimeoutMs ?? 90_000);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startOnce(count: number, timeoutMs: number): Promise<EtcdCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-etcd-'));
  const ports = await freePorts(count * 2);
  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const peerUrl = (i: number) => `http://127.0.0.1:${ports[2 * i + 1]}`;
  const clientUrl = (i: number) => `http://127.0.0.1:${ports[2 * i]}`;
  const initialCluster = names.map((name, i) => `${name}=${peerUrl(i)}`).join(',');
  const token = `capstan-${randomBytes(4).toString('hex')}`;
  const children: ChildProcess[] = [];
  const members: EtcdMember[] = [];
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killOnExit);
    await Promise.all(children.map((child) => killChild(child)));
    rmSync(dataDir, { recursive: true, force: true });
  };
  // Backstop for a test process that exits without running its teardowns.
  const killOnExit = () => {
    for (const child of children) if (isRunning(child)) signal(child, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.on('exit', killOnExit);

  const spawnMember = (i: number): ChildProcess => {
    const memberDir = join(dataDir, names[i]);
    const log = openSync(join(dataDir, `${names[i]}.log`), 'a');
    const child = spawn(ETCD_BINARY, [
      '--name', names[i],
      '--data-dir', memberDir,
      '--listen-client-urls', clientUrl(i),
      '--advertise-client-urls', clientUrl(i),
      '--listen-peer-urls', peerUrl(i),
      '--initial-advertise-peer-urls', peerUrl(i),
      '--initial-cluster', initialCluster,
      '--initial-cluster-token', token,
      '--initial-cluster-state', 'new',
      // A leader stuck in a seconds-long fsync must not trigger election storms.
      '--heartbeat-interval', '200',
      '--election-timeout', '3000',
      '--logger', 'zap',
      '--log-level', 'warn',
    ], {
      stdio: ['ignore', log, log],
      env: { ...process.env, ...(process.arch === 'arm64' ? { ETCD_UNSUPPORTED_ARCH: 'arm64' } : {}) },
    });
    closeSync(log);
    if (child.pid === undefined) throw new Error(`could not start ${ETCD_BINARY}`);
    children[i] = child;
    members[i] = { name: names[i], clientUrl: clientUrl(i), pid: child.pid, logFile: join(dataDir, `${names[i]}.log`) };
    return child;
  };

  try {
    for (let i = 0; i < count; i++) {
      mkdirSync(join(dataDir, names[i]));
      spawnMember(i);
    }
    await waitHealthy(members, children, timeoutMs);
  } catch (err) {
    const logs = members.map((m) => `--- ${m.name}\n${tail(m.logFile)}`).join('\n');
    await stop();
    throw new Error(`etcd did not start: ${(err as Error).message}\n${logs}`);
  }
  const endpoints = members.map((m) => m.clientUrl);
  return {
    members,
    endpoints,
    url: `etcd://${endpoints.map((e) => e.replace('http://', '')).join(',')}`,
    dataDir,
    stop,
    killMember: (i) => killChild(children[i], 'SIGKILL'),
    restartMember: async (i) => {
      if (stopped) throw new Error('cluster is stopped');
      if (isRunning(children[i])) throw new Error(`member ${names[i]} is still running`);
      const child = spawnMember(i);
      await waitHealthy([members[i]], [child], timeoutMs);
    },
  };
}

async function waitHealthy(members: EtcdMember[], children: ChildProcess[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(members.map((m) => m.clientUrl));
  while (pending.size > 0) {
    const exited = children.find((c) => c.exitCode !== null || c.signalCode !== null);
    if (exited) throw new Error(`member pid ${exited.pid} exited (${exited.exitCode ?? exited.signalCode})`);
    if (Date.now() > deadline) throw new Error(`not healthy after ${timeoutMs} ms: ${[...pending].join(', ')}`);
    for (const url of [...pending]) {
      if (await isHealthy(url)) pending.delete(url);
    }
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function isHealthy(clientUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/** Signals the child by its PID; it may have exited a moment ago, which is fine. */
function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    process.kill(child.pid!, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

async function killChild(child: ChildProcess, first: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signal(child, first);
  const timer = setTimeout(() => {
    if (isRunning(child)) signal(child, 'SIGKILL');
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

/** Ports the kernel had free a moment ago; the caller retries if one got taken meanwhile. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => new Promise<import('node:net').Server>(
    (resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })));
  const ports = servers.map((s) => (s.address() as import('node:net').AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}
