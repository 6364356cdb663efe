// `capstan install --role control-plane|node|all`: puts this release in /opt/capstan, writes
// /etc/capstan and /etc/default/capstan, installs the role's systemd units, enables and starts
// them, waits until the API server answers and the node is Ready, and prints what to do next.
// Run again (also from a newer release) it upgrades in place: files are rewritten, and units
// that were running are restarted one at a time, each waited for before the next. Everything
// it creates is recorded in /var/lib/capstan/install-manifest.json for `capstan uninstall`.
// --root DIR installs below DIR without starting anything (`systemctl --root` links the units).
import { parseArgs } from 'node:util';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostAddress, parseDuration } from '../util/index.js';
import { clientsetFromKubeconfig, resources } from '../client/index.js';
import { InstallFiles } from './install/files.js';
import { readManifest, writeManifest, type InstallManifest } from './install/manifest.js';
import { CONTROL_PLANE_UNITS, ETCD_UNIT, NODE_UNITS, SYSTEM_CONTAINERD_UNIT, hasControlPlane, hasNode, layout, type Role } from './install/layout.js';
import { Systemctl } from './install/systemctl.js';
import { installJoinCommand, prepareJoins, writeControlPlaneFiles, type JoinArgs } from './install/control-plane.js';
import { importReleaseImages, joinNode, liveSocket, nodeComponentKubeconfigs, NODE_NAME, writeContainerdFiles } from './install/node.js';
import { apiServerReady, nodeReady, until } from './install/wait.js';

const ROLES: Role[] = ['control-plane', 'node', 'all'];

/** The release this command runs from (the directory with package.json above dist/). */
export function thisRelease(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function releaseVersion(dir: string): string {
  const file = existsSync(join(dir, 'RELEASE')) ? join(dir, 'RELEASE') : join(dir, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export const installFlags = {
  role: { type: 'string' },
  store: { type: 'string', default: 'sqlite' },
  'advertise-address': { type: 'string' },
  'node-ip': { type: 'string' },
  'node-name': { type: 'string' },
  join: { type: 'string' },
  token: { type: 'string' },
  'discovery-token-ca-cert-hash': { type: 'string' },
  'cluster-cidr': { type: 'string', default: '10.244.0.0/16' },
  'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
  'token-ttl': { type: 'string', default: '24h' },
  timeout: { type: 'string', default: '15m' },
  root: { type: 'string', default: '/' },
  from: { type: 'string' },
} as const;

/** --store: sqlite (default, the embedded database), etcd (a local member, capstan-etcd.service) or an etcd:// URL. */
function storeURL(store: string): { url: string; localEtcd: boolean } {
  if (store === 'sqlite') return { url: 'sqlite:///var/lib/capstan/state.db', localEtcd: false };
  if (store === 'etcd') return { url: 'etcd://127.0.0.1:2379', localEtcd: true };
  if (/^(sqlite|etcd):\/\//.test(store)) return { url: store, localEtcd: false };
  throw new Error(`--store must be sqlite, etcd, sqlite:///PATH or etcd://HOST:PORT[,…], not "${store}"`);
}

const EXTRA_ARGS = ['APISERVER', 'CONTROLLER_MANAGER', 'SCHEDULER', 'KUBELET', 'PROXY', 'NETWORK_AGENT', 'DNS'].map((c) => `CAPSTAN_${c}_ARGS`);

/** Each component's extra flags: from the installer's environment, else kept from the file a previous install wrote. */
export function extraArgs(existing: string | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
  const kept = new Map((existing ?? '').split('\n').map((l) => /^(CAPSTAN_[A-Z_]+_ARGS)=(.*)$/.exec(l)).filter((m) => !!m).map((m) => [m![1], m![2]]));
  return Object.fromEntries(EXTRA_ARGS.map((k) => [k, (env[k] ?? kept.get(k) ?? '').replace(/\n/g, ' ')]));
}

export function defaultsFile(v: Record<string, string>): string {
  return `# Written by capstan install; the capstan units read it. A new install rewrites it.\n${Object.entries(v).map(([k, val]) => `${k}=${val}`).join('\n')}\n`;
}

const say = (line: string) => process.stdout.write(`capstan install: ${line}\n`);

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: installFlags });
  const role = values.role as Role;
  if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
  const root = resolve(values.root);
  const L = layout(root);
  const sys = new Systemctl(root);
  if (sys.live && process.getuid?.() !== 0) throw new Error('capstan install needs root (it writes /opt, /etc and systemd units)');
  const release = resolve(values.from ?? thisRelease());
  if (!existsSync(join(release, 'systemd')) || !existsSync(join(release, 'bin', 'capstan'))) throw new Error(`${release} is not a capstan release (no systemd/ or bin/capstan): unpack capstan-<version>-linux-amd64.tar.gz and run its bin/capstan`);
  const timeoutMs = parseDuration(values.timeout);
  const store = storeURL(values.store);
  const advertise = values['advertise-address'] ?? hostAddress();
  if (!advertise) throw new Error('this machine has no address but loopback: pass --advertise-address');
  const nodeIP = values['node-ip'] ?? advertise;
  const nodeName = (values['node-name'] ?? NODE_NAME()).toLowerCase();
  const joinArgs: JoinArgs | undefined = values.join
    ? { server: values.join, token: values.token ?? '', caCertHash: values['discovery-token-ca-cert-hash'] ?? '' }
    : undefined;
  if (joinArgs && (!joinArgs.token || !joinArgs.caCertHash)) throw new Error('--join needs --token and --discovery-token-ca-cert-hash');
  if (role === 'node' && sys.live && !joinArgs && !existsSync(join(L.nodeEtc, 'kubelet.conf'))) {
    throw new Error('--role node needs --join https://SERVER:6443 --token ID.SECRET --discovery-token-ca-cert-hash sha256:HASH (the control plane\'s install prints it)');
  }

  const prev = readManifest(L.manifest);
  if (prev && prev.role !== role) throw new Error(`this machine is installed as ${prev.role}; run \`capstan uninstall\` before installing it as ${role}`);
  const version = releaseVersion(release);
  const m: InstallManifest = prev ?? { version, role, created: [], units: [], nodeName };
  const upgrade = !!prev;
  say(`${upgrade ? `upgrading ${prev.version} → ${version}` : `installing ${version}`} as ${role}${sys.live ? '' : ` below ${root} (not started)`}`);
  m.version = version;
  const files = new InstallFiles(m);
  files.mkdir(L.varLib, 0o700);
  const save = () => writeManifest(L.manifest, m);
  save();
  try {
    if (!existsSync(L.opt) || realpathSync(release) !== realpathSync(L.opt)) {
      files.replaceTree(release, L.opt);
      say(`release copied to ${L.opt}`);
    }
    const cp = hasControlPlane(role) ? { server: `https://${advertise}:6443` } : undefined;
    files.write(L.defaults, defaultsFile({
      CAPSTAN_ROLE: role, CAPSTAN_ADVERTISE_ADDRESS: advertise, CAPSTAN_STORE: store.url,
      CAPSTAN_CLUSTER_CIDR: values['cluster-cidr'], CAPSTAN_SERVICE_CIDR: values['service-cluster-ip-range'],
      CAPSTAN_NODE_NAME: nodeName, CAPSTAN_NODE_IP: nodeIP,
      ...extraArgs(existsSync(L.defaults) ? readFileSync(L.defaults, 'utf8') : undefined, process.env),
    }));
    const units: string[] = [];
    const targets: string[] = [];
    if (cp) {
      units.push(...(store.localEtcd ? [ETCD_UNIT] : []), ...CONTROL_PLANE_UNITS);
      targets.push('capstan-control-plane.target');
    }
    if (hasNode(role)) {
      units.push(...NODE_UNITS);
      targets.push('capstan-node.target');
    }
    for (const unit of [...targets, ...units]) files.write(join(L.units, unit), readFileSync(join(L.opt, 'systemd', unit)));
    for (const t of targets) files.expect(join(L.units, `${t}.wants`));
    const cpFiles = cp ? writeControlPlaneFiles(L, files, { advertiseAddress: advertise, serviceCIDR: values['service-cluster-ip-range'] }) : undefined;
    let containerd: ReturnType<typeof writeContainerdFiles> | undefined;
    if (hasNode(role)) {
      const systemUnit = sys.exists(SYSTEM_CONTAINERD_UNIT);
      containerd = writeContainerdFiles(L, files, systemUnit, L.opt);
      m.containerd ??= { unit: containerd.unit, wasActive: sys.isActive(containerd.unit), dropIn: containerd.dropIn };
      if (!systemUnit) units.unshift(containerd.unit);
    }
    m.units = [...new Set([...m.units, ...units, ...targets])];
    save();
    sys.daemonReload();
    sys.enable([...units, ...targets]);
    if (!sys.live) {
      say(`files and units are in place below ${root}; nothing was started`);
      return 0;
    }

    const active = new Set(m.units.filter((u) => sys.isActive(u)));
    /** Starts a unit, or restarts it when it was running (an upgrade: one at a time). */
    const bringUp = async (unit: string, ready?: () => Promise<void>) => {
      if (active.has(unit)) { say(`restarting ${unit}`); sys.restart(unit); } else sys.start([unit]);
      await ready?.();
    };
    let joinForNode = joinArgs;
    if (cpFiles) {
      if (store.localEtcd) await bringUp(ETCD_UNIT);
      await bringUp('capstan-apiserver.service', () => apiServerReady(cpFiles.adminKubeconfig, timeoutMs));
      say(`API server ready at ${cpFiles.server}`);
      await bringUp('capstan-controller-manager.service');
      await bringUp('capstan-scheduler.service');
      joinForNode = await prepareJoins(cpFiles, parseDuration(values['token-ttl']));
    }
    if (containerd) {
      if (containerd.changed || !sys.isActive(containerd.unit)) sys.restart(containerd.unit);
      const imported = await importReleaseImages(L.opt, liveSocket, timeoutMs);
      if (imported.length) say(`images imported: ${imported.join(', ')}`);
      if (await joinNode(L, files, joinForNode, nodeName) === 'joined') say(`${nodeName} joined ${joinForNode!.server} with its bootstrap token`);
      save();
      const kubeletConf = join(L.nodeEtc, 'kubelet.conf');
      await bringUp('capstan-kubelet.service', async () => {
        const clients = clientsetFromKubeconfig(kubeletConf, 'capstan-install');
        try {
          await until(`node ${nodeName} to register`, timeoutMs, async () => (await clients.resource(resources.nodes).get(undefined, nodeName), true));
        } finally { clients.close(); }
      });
      const requested = await nodeComponentKubeconfigs(L, nodeName);
      if (requested.length) say(`certificates issued for ${requested.join(', ')}`);
      for (const unit of NODE_UNITS.filter((u) => u !== 'capstan-kubelet.service')) await bringUp(unit);
      sys.start(['capstan-node.target']);
      await nodeReady(kubeletConf, nodeName, timeoutMs);
      say(`node ${nodeName} is Ready`);
    }
    if (cpFiles) sys.start(['capstan-control-plane.target']);
    save();
    process.stdout.write(nextSteps(role, cpFiles?.adminKubeconfig, cp ? joinForNode : undefined, values['token-ttl']));
    return 0;
  } finally {
    save();
  }
}

function nextSteps(role: Role, admin: string | undefined, join_: JoinArgs | undefined, ttl: string): string {
  const lines = [''];
  if (admin) {
    lines.push('The control plane is running. To use the cluster from this machine:', `  export KUBECONFIG=${admin}`, '  kubectl get nodes', '');
    if (join_) {
      lines.push(`To add a node, unpack the same release on it and run as root (the token is valid for ${ttl};`,
        `\`capstan token create --kubeconfig ${admin}\` makes another):`, `  ${installJoinCommand({ ...join_ })}`, '');
    }
  }
  if (role !== 'control-plane') lines.push('This node is Ready. Its units: systemctl status capstan-node.target; logs: journalctl -u capstan-kubelet', '');
  lines.push('To remove capstan from this machine: capstan uninstall', '');
  return lines.join('\n');
}
