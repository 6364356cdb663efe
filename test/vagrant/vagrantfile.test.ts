// vagrant/Vagrantfile as Vagrant reads it: `vagrant validate` with the libvirt provider's own
// checks, and the machines `vagrant status` lists for the settings. The real `vagrant up` is
// `npm run test:vagrant` (minutes of emulated VMs). Skipped where vagrant and vagrant-libvirt are
// not installed: `npm test` does not install them (Ruby and about a hundred packages).
import t from 'tap';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(import.meta.url), '../../../..');
const run = promisify(execFile);

function vagrantWithLibvirt(): string | undefined {
  try {
    const plugins = execFileSync('vagrant', ['plugin', 'list'], { encoding: 'utf8', env: { ...process.env, VAGRANT_CHECKPOINT_DISABLE: '1' }, timeout: 120_000 });
    return plugins.includes('vagrant-libvirt') ? undefined : 'vagrant-libvirt is not installed';
  } catch {
    return 'vagrant is not installed (apt-get install vagrant vagrant-libvirt)';
  }
}
const missing = vagrantWithLibvirt();

const dir = mkdtempSync(join(tmpdir(), 'capstan-vagrantfile-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const release = join(dir, 'capstan-0.0.0-linux-amd64.tar.gz');
writeFileSync(release, '');

/** vagrant on the repo's Vagrantfile, its state in the temp dir; libvirt is never asked (no machine was created). */
async function vagrant(args: string[], settings: Record<string, string>): Promise<{ code: number; out: string }> {
  const env = {
    ...process.env, VAGRANT_CWD: join(repo, 'vagrant'), VAGRANT_HOME: join(dir, 'home'), VAGRANT_DOTFILE_PATH: join(dir, 'dot'),
    VAGRANT_CHECKPOINT_DISABLE: '1', LIBVIRT_DEFAULT_URI: `qemu:///system?socket=${join(dir, 'no-libvirt.sock')}`,
    CAPSTAN_RELEASE: release, ...settings,
  };
  try {
    const r = await run('vagrant', args, { env, encoding: 'utf8', timeout: 180_000 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: (err.stdout ?? '') + (err.stderr ?? '') };
  }
}

const machines = (out: string) => out.split('\n').map((l) => l.split(',')).filter((f) => f[2] === 'state').map((f) => `${f[1]}:${f[3]}`);

t.test('the lab validates, one control plane and NODES nodes', { skip: missing }, async (t) => {
  const v = await vagrant(['validate'], {});
  t.equal(v.code, 0, v.out);
  t.match(v.out, 'Vagrantfile validated successfully.');
  const s = await vagrant(['status', '--machine-readable'], {});
  t.equal(s.code, 0, 'vagrant status without libvirt');
  t.same(machines(s.out), ['cp:not_created', 'node1:not_created', 'node2:not_created'], 'two nodes by default');
  const three = await vagrant(['status', '--machine-readable'], { NODES: '3', SUBNETS: '2' });
  t.same(machines(three.out), ['cp:not_created', 'node1:not_created', 'node2:not_created', 'node3:not_created']);
  const two = await vagrant(['validate'], { NODES: '3', SUBNETS: '2', CAPSTAN_CONSOLE_DIR: dir });
  t.equal(two.code, 0, `two subnets and consoles in files: ${two.out}`);
});

t.test('bad settings are refused with what is wrong', { skip: missing }, async (t) => {
  const subnets = await vagrant(['validate'], { SUBNETS: '3' });
  t.not(subnets.code, 0);
  t.match(subnets.out, 'SUBNETS must be 1 or 2');
  const nodes = await vagrant(['validate'], { NODES: 'none' });
  t.not(nodes.code, 0);
  t.match(nodes.out, /invalid value for Integer\(\): "none"/);
  const gone = await vagrant(['validate'], { CAPSTAN_RELEASE: join(dir, 'missing.tar.gz') });
  t.not(gone.code, 0);
  t.match(gone.out, `CAPSTAN_RELEASE=${join(dir, 'missing.tar.gz')}: no such file (npm run package builds one)`);
});
