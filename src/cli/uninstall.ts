// `capstan uninstall [--root DIR]`: stops and removes everything `capstan install` created on
// this machine — units, files, pods and containers, the node's network devices, routes and
// nftables tables, cgroups — as recorded in /var/lib/capstan/install-manifest.json, and
// nothing else. Safe to run again.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { layout } from './install/layout.js';
import { readManifest } from './install/manifest.js';
import { Systemctl } from './install/systemctl.js';
import { uninstall } from './install/remove.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: { root: { type: 'string', default: '/' } } });
  const L = layout(resolve(values.root));
  const sys = new Systemctl(L.root);
  if (sys.live && process.getuid?.() !== 0) throw new Error('capstan uninstall needs root');
  const m = readManifest(L.manifest);
  if (!m) {
    process.stdout.write(`capstan uninstall: nothing to do (no ${L.manifest})\n`);
    return 0;
  }
  const log = (l: string) => process.stdout.write(`capstan uninstall: ${l}\n`);
  log(`removing capstan ${m.version} (${m.role})`);
  const problems = await uninstall(L, m, sys, log);
  for (const p of problems) process.stderr.write(`capstan uninstall: ${p}\n`);
  if (!problems.length) log('done');
  return problems.length ? 1 : 0;
}
