// `capstan reset [--data-dir DIR]`: stops and removes everything `capstan up` created for DIR
// (processes, containers and shims, cgroups, mounts, network devices, nft tables, the dir).
// Idempotent; refuses a dir that is not a capstan data dir. See src/reset/DESIGN.md.
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NotADataDirError, resetDataDir } from '../reset/index.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: { 'data-dir': { type: 'string', default: '.capstan' } } });
  const dir = resolve(values['data-dir']);
  if (process.getuid?.() !== 0 && existsSync(join(dir, 'containerd'))) {
    process.stderr.write(`capstan reset: ${dir} ran a node; removing it needs root (containers, cgroups, mounts, network devices)\n`);
    return 1;
  }
  try {
    const report = await resetDataDir(dir, (line) => process.stdout.write(`capstan reset: ${line}\n`));
    for (const p of report.problems) process.stderr.write(`capstan reset: ${p}\n`);
    if (!report.removed.length && !report.problems.length) process.stdout.write(`capstan reset: nothing to do for ${dir}\n`);
    return report.problems.length ? 1 : 0;
  } catch (e) {
    if (!(e instanceof NotADataDirError)) throw e;
    process.stderr.write(`capstan reset: ${e.message}\n`);
    return 1;
  }
}
