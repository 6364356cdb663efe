// The unit files parse, name commands capstan has, and group as `capstan install` enables them.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = resolve(fileURLToPath(import.meta.url), '../../../../systemd');
const units = readdirSync(dir).filter((f) => f.endsWith('.service') || f.endsWith('.target'));
const read = (unit: string) => readFileSync(join(dir, unit), 'utf8');

/** `Key=` values of a unit, in order (continuation lines joined). */
function values(text: string, key: string): string[] {
  return text.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1).trim());
}

t.test('every unit passes systemd-analyze verify and runs a real capstan subcommand', async (t) => {
  const help = execFileSync(process.execPath, [resolve(dir, '../bin/capstan.js'), '--help'], { encoding: 'utf8' });
  for (const unit of units) {
    const sub = /bin\/capstan (\S+)/.exec(read(unit))?.[1];
    if (sub) t.ok(help.includes(`  ${sub} `), `${unit} runs "capstan ${sub}", which exists`);
    // systemd-analyze exits non-zero for complaints too; only a missing tool is an error here
    // (Debian's `systemd` package ships it, and scripts/setup.sh installs that).
    const run = spawnSync('systemd-analyze', ['verify', join(dir, unit)], { encoding: 'utf8' });
    if (run.error) throw new Error(`systemd-analyze cannot run (${run.error.message}); scripts/setup.sh installs Debian's systemd package`);
    const out = `${run.stdout}${run.stderr}`;
    // Only complaints about the unit itself count; a missing /opt/capstan on this machine does not.
    const problems = out.split('\n').filter((l) => l.includes(unit) && !/opt\/capstan|No such file/.test(l));
    t.same(problems, [], `${unit} verifies`);
  }
});

t.test('the node units are separate, grouped by capstan-node.target, and restart on their own', async (t) => {
  const nodeUnits = ['capstan-network-agent.service', 'capstan-kubelet.service', 'capstan-proxy.service', 'capstan-dns.service'];
  const wants = values(read('capstan-node.target'), 'Wants').join(' ').split(/\s+/);
  for (const unit of nodeUnits) {
    const text = read(unit);
    t.ok(wants.includes(unit), `capstan-node.target wants ${unit}`);
    t.same(values(text, 'PartOf'), ['capstan-node.target'], `${unit} stops and restarts with the target`);
    t.same(values(text, 'WantedBy'), ['capstan-node.target'], `${unit} is enabled into the target`);
    t.same(values(text, 'Restart'), ['always'], `${unit} restarts always`);
  }
  const cp = values(read('capstan-control-plane.target'), 'Wants').join(' ').split(/\s+/);
  t.same(cp.sort(), ['capstan-apiserver.service', 'capstan-controller-manager.service', 'capstan-scheduler.service']);
});

t.test('restarting containerd or the kubelet leaves the pods alone', async (t) => {
  // containerd's shims (the pods' parents) live in containerd's cgroup: only the main process
  // may be stopped, as Debian's containerd.service does.
  t.same(values(read('capstan-containerd.service'), 'KillMode'), ['process']);
  // The kubelet has no pods among its processes (they run under the shims), so its whole
  // cgroup may go; it must not ask for the pods' cgroups (no Delegate).
  const kubelet = read('capstan-kubelet.service');
  t.same(values(kubelet, 'KillMode'), ['mixed']);
  t.same(values(kubelet, 'Delegate'), []);
  t.match(values(kubelet, 'ExecStart')[0], /--cgroup-root \/capstan/, 'pods live under /capstan, outside the unit\'s cgroup');
});
