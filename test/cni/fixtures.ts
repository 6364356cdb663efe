// Shared pieces of the CNI tests: a "node" namespace with a fake uplink (proxy ARP answers
// for 169.254.1.1 only if the node routes it somewhere), the plugin executed the way
// containerd executes it, and an in-process agent serving a temporary socket.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { logger } from '../../src/log/index.js';
import { createNetlink } from '../../src/netlink/index.js';
import { CONFLIST_NAME, NetworkAgent, pluginBinary } from '../../src/network/index.js';
import { newNamespace, type Namespace } from '../native/fixtures/netns.js';

type Teardown = { teardown(fn: () => unknown): void };

export const NODE_IP = '192.0.2.1';

export async function nodeNamespace(t: Teardown): Promise<Namespace> {
  const ns = await newNamespace(t, 'cninode');
  const ip = (...args: string[]) => execa('ip', ['-n', ns.name, ...args]);
  await ip('link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up1');
  await ip('link', 'set', 'up0', 'up');
  await ip('link', 'set', 'up1', 'up');
  await ip('addr', 'add', `${NODE_IP}/24`, 'dev', 'up0');
  await ip('route', 'add', 'default', 'via', '192.0.2.254', 'dev', 'up0', 'onlink');
  return ns;
}

export function tempDir(t: Teardown, prefix = 'ccni-'): string {
  // Short: unix socket paths are limited to 107 bytes.
  const dir = mkdtempSync(`/tmp/${prefix}`);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface PluginResult {
  code: number | null;
  stdout: string;
  json: Record<string, any>;
}

/** Runs a plugin binary with only the CNI environment, config on stdin, as containerd does. */
export function runPlugin(bin: string, env: Record<string, string>, stdin: string): Promise<PluginResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [], { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      let json: Record<string, any> = {};
      try { json = out.trim() ? JSON.parse(out) : {}; } catch { /* left empty: the test sees stdout */ }
      resolve({ code, stdout: out, json });
    });
    child.stdin.end(stdin);
  });
}

/** What the runtime sends one plugin of a conflist: its entry plus the list's name and version. */
export function pluginStdin(confDir: string, override: Record<string, unknown> = {}, index = 0): string {
  const list = JSON.parse(readFileSync(join(confDir, CONFLIST_NAME), 'utf8')) as { name: string; cniVersion: string; plugins: Record<string, unknown>[] };
  return JSON.stringify({ ...list.plugins[index], name: list.name, cniVersion: list.cniVersion, ...override });
}

export interface InProcessAgent {
  agent: NetworkAgent;
  dir: string;
  binDir: string;
  confDir: string;
  socket: string;
  plugin: string;
  stdin(override?: Record<string, unknown>): string;
  env(command: string, containerID: string, netns: string, args?: string): Record<string, string>;
}

export async function startAgent(t: Teardown, node: Namespace, podCIDR: string, dir = tempDir(t)): Promise<InProcessAgent> {
  const binDir = join(dir, 'bin'), confDir = join(dir, 'net.d'), socket = join(dir, 'cni.sock');
  const agent = new NetworkAgent({
    netlink: createNetlink('addon'), hostNetns: node.path, stateDir: join(dir, 'state'), socket, podCIDR,
    cniBinDir: binDir, cniConfDir: confDir, pluginBinary: await pluginBinary(), mtu: 1500,
    log: logger('network-agent', {}, () => undefined),
  });
  await agent.start();
  t.teardown(() => agent.stop());
  return {
    agent, dir, binDir, confDir, socket, plugin: join(binDir, 'capstan'),
    stdin: (o = {}) => pluginStdin(confDir, o),
    env: (command, containerID, netns, args = '') => ({ CNI_COMMAND: command, CNI_CONTAINERID: containerID, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: binDir, CNI_ARGS: args }),
  };
}
