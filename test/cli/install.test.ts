// `capstan install` / `capstan uninstall` below a scratch root (`--root`): what they write,
// that a second install keeps the cluster's keys and upgrades the release in place, that the
// units are linked as systemd would (`systemctl --root` does it), and that uninstall leaves
// the root exactly as it found it. Starting the units is tested on real VMs (npm run test:vm).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../../../..');
const capstan = join(repo, 'bin', 'capstan.js');

function capstanRun(args: string[], env: Record<string, string> = {}): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [capstan, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A release as `npm run package` lays it out, without the heavy parts the installer does not read. */
function fakeRelease(dir: string, version: string): string {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(repo, 'systemd'), join(dir, 'systemd'), { recursive: true });
  cpSync(join(repo, 'bin', 'capstan'), join(dir, 'bin', 'capstan'));
  writeFileSync(join(dir, 'RELEASE'), JSON.stringify({ version }));
  return dir;
}

/** Every path below `root` with its kind, link target or content: what "as it found it" compares. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const rel = relative(root, p);
      if (st.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(p)}`);
      else if (st.isDirectory()) { out.push(`${rel}/`); walk(p); }
      else out.push(`${rel} ${readFileSync(p).length}`);
    }
  };
  walk(root);
  return out;
}

/** A machine's root with things of its own that must survive: an enabled unit, an /etc/default file. */
function machine(t: { teardown(f: () => void): void }, withContainerdUnit: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-install-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'root');
  mkdirSync(join(root, 'etc/systemd/system/multi-user.target.wants'), { recursive: true });
  mkdirSync(join(root, 'lib/systemd/system'), { recursive: true });
  writeFileSync(join(root, 'lib/systemd/system/ssh.service'), '[Service]\nExecStart=/usr/sbin/sshd -D\n[Install]\nWantedBy=multi-user.target\n');
  symlinkSync('/lib/systemd/system/ssh.service', join(root, 'etc/systemd/system/multi-user.target.wants/ssh.service'));
  mkdirSync(join(root, 'etc/default'), { recursive: true });
  writeFileSync(join(root, 'etc/default/ssh'), 'SSHD_OPTS=\n');
  mkdirSync(join(root, 'var/lib'), { recursive: true });
  if (withContainerdUnit) writeFileSync(join(root, 'lib/systemd/system/containerd.service'), '[Service]\nExecStart=/usr/bin/containerd\n[Install]\nWantedBy=multi-user.target\n');
  return root;
}

const cpFlags = (root: string, release: string) => ['install', '--role', 'all', '--root', root, '--from', release, '--advertise-address', '192.0.2.10', '--node-name', 'vm1'];

t.test('install, reinstall, upgrade and uninstall of a control plane and node', async (t) => {
  const root = machine(t, false);
  const before = snapshot(root);
  const rel1 = fakeRelease(join(root, '..', 'rel1'), '0.1.0');
  const first = capstanRun(cpFlags(root, rel1), { CAPSTAN_CONTROLLER_MANAGER_ARGS: '--leader-elect-lease-duration 60s' });
  t.equal(first.code, 0, first.out);
  t.match(first.out, /installing 0\.1\.0 as all/);

  // The release, configuration, PKI and units where the units expect them.
  t.ok(existsSync(join(root, 'opt/capstan/bin/capstan')));
  const defaults = readFileSync(join(root, 'etc/default/capstan'), 'utf8');
  t.match(defaults, /^CAPSTAN_ADVERTISE_ADDRESS=192\.0\.2\.10$/m);
  t.match(defaults, /^CAPSTAN_NODE_NAME=vm1$/m);
  t.match(defaults, /^CAPSTAN_STORE=sqlite:\/\/\/var\/lib\/capstan\/state\.db$/m);
  for (const f of ['pki/ca.crt', 'pki/ca.key', 'pki/apiserver.crt', 'pki/apiserver-kubelet-client.crt', 'sa.key', 'tokens.csv', 'admin.kubeconfig', 'controller-manager.kubeconfig', 'scheduler.kubeconfig']) {
    t.ok(existsSync(join(root, 'etc/capstan', f)), `/etc/capstan/${f}`);
  }
  t.match(readFileSync(join(root, 'etc/capstan/admin.kubeconfig'), 'utf8'), /server: https:\/\/192\.0\.2\.10:6443/);
  const containerd = readFileSync(join(root, 'etc/capstan/containerd.toml'), 'utf8');
  t.match(containerd, /root = "\/var\/lib\/capstan\/containerd\/root"/, 'paths as the machine sees them, not below --root');
  t.match(containerd, /bin_dir = "\/var\/lib\/capstan\/cni\/bin"/);
  // The kubelet and the network agent talk to the containerd this configuration makes.
  const socket = /\[grpc\]\s+address = "([^"]+)"/.exec(containerd)?.[1];
  for (const u of ['capstan-kubelet.service', 'capstan-network-agent.service']) {
    t.equal(/--container-runtime-endpoint unix:\/\/(\S+)/.exec(readFileSync(join(root, 'etc/systemd/system', u), 'utf8'))?.[1], socket, `${u} uses containerd's socket`);
  }
  // Linked as `systemctl enable` does: the targets into multi-user, the units into their targets.
  const link = (p: string) => readlinkSync(join(root, 'etc/systemd/system', p));
  t.equal(link('multi-user.target.wants/capstan-node.target'), '/etc/systemd/system/capstan-node.target');
  t.equal(link('multi-user.target.wants/capstan-control-plane.target'), '/etc/systemd/system/capstan-control-plane.target');
  for (const u of ['capstan-kubelet', 'capstan-proxy', 'capstan-network-agent', 'capstan-dns', 'capstan-containerd']) {
    t.equal(link(`capstan-node.target.wants/${u}.service`), `/etc/systemd/system/${u}.service`);
  }
  for (const u of ['capstan-apiserver', 'capstan-controller-manager', 'capstan-scheduler']) {
    t.equal(link(`capstan-control-plane.target.wants/${u}.service`), `/etc/systemd/system/${u}.service`);
  }
  t.match(readFileSync(join(root, 'etc/systemd/system/capstan-node.target.d/containerd.conf'), 'utf8'), /Wants=capstan-containerd\.service/,
    'no containerd.service on the machine: capstan runs its own');
  const manifest = JSON.parse(readFileSync(join(root, 'var/lib/capstan/install-manifest.json'), 'utf8'));
  t.equal(manifest.role, 'all');
  t.notOk(manifest.created.some((p: string) => p.endsWith('/etc/default') || p.endsWith('multi-user.target.wants') || p.endsWith('/var/lib')), 'what was there before is not recorded');

  // Again, from a newer release: the cluster's keys stay, the release is replaced.
  const ca = readFileSync(join(root, 'etc/capstan/pki/ca.key'));
  const rel2 = fakeRelease(join(root, '..', 'rel2'), '0.2.0');
  writeFileSync(join(rel2, 'NEW-FILE'), 'x');
  const second = capstanRun(cpFlags(root, rel2));
  t.equal(second.code, 0, second.out);
  t.match(second.out, /upgrading 0\.1\.0 → 0\.2\.0/);
  t.same(readFileSync(join(root, 'etc/capstan/pki/ca.key')), ca, 'the CA is kept');
  t.match(readFileSync(join(root, 'etc/default/capstan'), 'utf8'), /^CAPSTAN_CONTROLLER_MANAGER_ARGS=--leader-elect-lease-duration 60s$/m, 'extra flags are kept');
  t.ok(existsSync(join(root, 'opt/capstan/NEW-FILE')), 'the new release is in /opt/capstan');
  t.notOk(existsSync(join(root, 'opt/capstan.old')) || existsSync(join(root, 'opt/capstan.new')));

  const wrongRole = capstanRun(['install', '--role', 'node', '--root', root, '--from', rel2]);
  t.not(wrongRole.code, 0);
  t.match(wrongRole.out, /installed as all; run `capstan uninstall`/);

  // What containerd's CNI calls leave in libcni's cache, a directory the machine did not have.
  t.ok(manifest.created.includes(join(root, 'var/lib/cni/results')), 'libcni\'s cache dir is recorded when the install makes it possible');
  mkdirSync(join(root, 'var/lib/cni/results'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cni/results/capstan-0123abcd-eth0'), '{}');
  const removed = capstanRun(['uninstall', '--root', root]);
  t.equal(removed.code, 0, removed.out);
  t.same(snapshot(root), before, 'the machine is as it was found');
  const again = capstanRun(['uninstall', '--root', root]);
  t.equal(again.code, 0);
  t.match(again.out, /nothing to do/);
});

t.test('a node on a machine with containerd.service reconfigures that unit with a drop-in', async (t) => {
  const root = machine(t, true);
  const before = snapshot(root);
  const rel = fakeRelease(join(root, '..', 'rel'), '0.1.0');
  const r = capstanRun(['install', '--role', 'node', '--root', root, '--from', rel, '--advertise-address', '192.0.2.11', '--node-name', 'vm2']);
  t.equal(r.code, 0, r.out);
  t.match(readFileSync(join(root, 'etc/systemd/system/containerd.service.d/capstan.conf'), 'utf8'), /ExecStart=\/usr\/bin\/containerd --config \/etc\/capstan\/containerd\.toml/);
  t.notOk(existsSync(join(root, 'etc/systemd/system/capstan-containerd.service')));
  t.notOk(existsSync(join(root, 'etc/capstan/pki/ca.key')), 'a node holds no CA key');
  t.notOk(existsSync(join(root, 'etc/systemd/system/capstan-apiserver.service')));
  t.equal(capstanRun(['uninstall', '--root', root]).code, 0);
  t.same(snapshot(root), before);
});
