// The unit files parse and name commands capstan has.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = resolve(fileURLToPath(import.meta.url), '../../../../systemd');
const units = readdirSync(dir).filter((f) => f.endsWith('.service'));

t.test('every unit passes systemd-analyze verify and runs a real capstan subcommand', async (t) => {
  t.ok(units.length >= 3, `units: ${units.join(', ')}`);
  const help = execFileSync(process.execPath, [resolve(dir, '../bin/capstan.js'), '--help'], { encoding: 'utf8' });
  for (const unit of units) {
    const text = readFileSync(join(dir, unit), 'utf8');
    const sub = /capstan\.js (\S+)/.exec(text)?.[1];
    t.ok(sub && help.includes(`  ${sub} `), `${unit} runs "capstan ${sub}", which exists`);
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
