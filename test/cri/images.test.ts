// Image building and containerd configuration, checked with the standard tools and no
// daemon: tar lists our archives, the OCI layout is self-consistent, builds are
// reproducible, and containerd itself parses the config to what capstan asked for.
import t, { type Test } from 'tap';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildBusyboxImage, buildNodeImage, buildPauseImage, ociArchive, tar } from '../../src/kubelet/images/index.js';
import { containerdConfig, containerdPaths } from '../../src/kubelet/containerd/index.js';

const run = promisify(execFile);
const has = (bin: string) => { try { execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }); return true; } catch { return false; } };
/** A missing tool is a failure, not a skip: scripts/setup.sh installs every one of them. */
const need = (t: Test, bin: string, pkg: string) => t.ok(has(bin), `${bin} is installed (Debian package ${pkg}, in scripts/setup.sh)`);

async function list(archive: Buffer, dir: string, verbose = true): Promise<string[]> {
  const file = join(dir, `a-${Math.random()}.tar`);
  writeFileSync(file, archive);
  const { stdout } = await run('tar', [verbose ? '-tvf' : '-tf', file, '--numeric-owner', '--full-time']);
  return stdout.trim().split('\n');
}

async function extract(archive: Buffer, dir: string, name: string): Promise<Buffer> {
  const file = join(dir, `x-${Math.random()}.tar`);
  writeFileSync(file, archive);
  return (await run('tar', ['-xOf', file, name], { encoding: 'buffer', maxBuffer: 256 << 20 })).stdout;
}

t.test('images and config', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-images-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  t.test('tar writes what GNU tar reads', async (t) => {
    const long = `${'d'.repeat(60)}/${'e'.repeat(60)}/file`;
    const archive = tar([
      { type: 'dir', path: 'tmp', mode: 0o1777 },
      { type: 'file', path: 'bin/x', data: Buffer.from('#!/bin/sh\n'), mode: 0o755 },
      { type: 'symlink', path: 'bin/y', target: '/bin/x' },
      { type: 'file', path: long, data: Buffer.alloc(1000, 1) },
    ]);
    t.equal(archive.length % 512, 0);
    const lines = await list(archive, dir);
    t.match(lines[0], /^drwxrwxrwt 0\/0 +0 2000-01-01 00:00:00 tmp\/$/);
    t.match(lines[1], /^-rwxr-xr-x 0\/0 +10 .* bin\/x$/);
    t.match(lines[2], /^lrwxrwxrwx 0\/0 +0 .* bin\/y -> \/bin\/x$/);
    t.match(lines[3], new RegExp(`^-rw-r--r-- 0/0 +1000 .* ${long}$`), 'a path over 100 bytes uses the ustar prefix');
    t.same(await extract(archive, dir, long), Buffer.alloc(1000, 1));
  });

  t.test('the OCI layout is self-consistent', async (t) => {
    const layer = tar([{ type: 'file', path: 'hello', data: Buffer.from('hi') }]);
    const img = ociArchive(layer, { Cmd: ['/hello'] });
    const names = await list(img.archive, dir, false);
    t.same(names.slice(0, 2), ['oci-layout', 'index.json']);
    for (const name of names.filter((n) => n.startsWith('blobs/sha256/') && !n.endsWith('/'))) {
      const data = await extract(img.archive, dir, name);
      t.equal(createHash('sha256').update(data).digest('hex'), name.slice('blobs/sha256/'.length), `${name} content matches its name`);
    }
    const index = JSON.parse((await extract(img.archive, dir, 'index.json')).toString());
    t.equal(index.manifests[0].digest, img.manifestDigest);
    t.equal(index.manifests[0].platform.os, 'linux');
    t.notOk(index.manifests[0].annotations, 'no ref.name: ctr would invent a colliding import-<date> name');
    const manifest = JSON.parse((await extract(img.archive, dir, `blobs/sha256/${img.manifestDigest.slice(7)}`)).toString());
    t.equal(manifest.config.digest, img.configDigest);
    const config = JSON.parse((await extract(img.archive, dir, `blobs/sha256/${img.configDigest.slice(7)}`)).toString());
    t.same(config.rootfs.diff_ids, [manifest.layers[0].digest]);
    t.same(config.config.Cmd, ['/hello']);
  });

  t.test('pause image: a static PID 1, reproducible', async (t) => {
    if (!need(t, 'gcc', 'gcc')) return;
    const [a, b] = [await buildPauseImage(), await buildPauseImage()];
    t.equal(a.configDigest, b.configDigest, 'same source, same digest: re-import is skipped');
    t.equal(a.name, 'localhost/capstan/pause:1');
    const pause = await extract(a.archive, dir, `blobs/sha256/${(JSON.parse((await extract(a.archive, dir, `blobs/sha256/${a.manifestDigest.slice(7)}`)).toString()).layers[0].digest as string).slice(7)}`);
    const bin = join(dir, 'pause');
    writeFileSync(bin, await extract(pause, dir, 'pause'), { mode: 0o755 });
    if (!need(t, 'file', 'file')) return;
    const { stdout: file } = await run('file', [bin]);
    t.match(file, /statically linked|static-pie/);
    t.equal((await run(bin, ['-v'])).stdout, 'capstan-pause 1\n');
  });

  t.test('busybox image: applets as symlinks', async (t) => {
    if (!need(t, 'busybox', 'busybox-static')) return;
    const img = await buildBusyboxImage();
    t.equal((await buildBusyboxImage()).configDigest, img.configDigest, 'reproducible');
    const manifest = JSON.parse((await extract(img.archive, dir, `blobs/sha256/${img.manifestDigest.slice(7)}`)).toString());
    const layer = await extract(img.archive, dir, `blobs/sha256/${(manifest.layers[0].digest as string).slice(7)}`);
    const lines = await list(layer, dir);
    for (const applet of ['bin/sh', 'usr/sbin/httpd', 'usr/bin/nc', 'bin/sleep', 'bin/cat', 'bin/echo', 'bin/ls', 'usr/bin/env']) {
      t.ok(lines.some((l) => l.endsWith(` ${applet} -> /bin/busybox`)), applet);
    }
    t.ok(lines.some((l) => /^-rwxr-xr-x .* usr\/bin\/wget$/.test(l)), 'wget is the -T/--timeout wrapper');
    t.match((await extract(layer, dir, 'etc/nsswitch.conf')).toString(), /^hosts: files dns$/m);
    t.ok(lines.some((l) => /^drwxrwxrwt .* tmp\/$/.test(l)), '/tmp is 1777');
    t.ok(lines.some((l) => l.endsWith(' etc/passwd')));
  });

  t.test('node image: the host\'s node and the libraries it loads, runs in a chroot', async (t) => {
    if (!need(t, 'strip', 'binutils') || !need(t, 'chroot', 'coreutils')) return;
    const img = await buildNodeImage();
    t.equal(img.name, 'localhost/capstan/node:1');
    t.equal((await buildNodeImage()).configDigest, img.configDigest, 'reproducible');
    const manifest = JSON.parse((await extract(img.archive, dir, `blobs/sha256/${img.manifestDigest.slice(7)}`)).toString());
    const config = JSON.parse((await extract(img.archive, dir, `blobs/sha256/${img.configDigest.slice(7)}`)).toString());
    t.same(config.config.Cmd, ['node']);
    const layerFile = join(dir, 'node-layer.tar');
    writeFileSync(layerFile, await extract(img.archive, dir, `blobs/sha256/${(manifest.layers[0].digest as string).slice(7)}`));
    const root = mkdtempSync(join(dir, 'node-root-'));
    await run('tar', ['-xf', layerFile, '-C', root]);
    // env -i: tap puts its NODE_OPTIONS loader into children's environments.
    const { stdout } = await run('env', ['-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'chroot', root, '/usr/local/bin/node', '-e', 'console.log(process.version, require("os").userInfo().username)']);
    t.equal(stdout.trim(), `${process.version} root`, 'node runs with nothing but the image: its libraries, the loader, /etc/passwd');
    const { stdout: listing } = await run('tar', ['-tf', layerFile]);
    t.notOk(listing.split('\n').some((l) => l.startsWith('bin/')), 'no shell or other programs');
  });

  t.test('containerd parses the config to what capstan asked for', async (t) => {
    if (!need(t, 'containerd', 'containerd')) return;
    const paths = containerdPaths(join(dir, 'ctrd'));
    const file = join(dir, 'config.toml');
    writeFileSync(file, containerdConfig({ paths, cniBinDir: '/usr/lib/cni', cniConfDir: join(dir, 'net.d'), streamServerAddress: '127.0.0.1', streamServerPort: 10010 }));
    const { stdout } = await run('containerd', ['--config', file, 'config', 'dump']);
    for (const want of [
      `root = "${paths.root}"`, `state = "${paths.state}"`, `address = "${paths.socket}"`, `address = "${paths.ttrpc}"`,
      'sandbox_image = "localhost/capstan/pause:1"', 'SystemdCgroup = false', 'restrict_oom_score_adj = true',
      'netns_mounts_under_state_dir = true', `Root = "${paths.runcRoot}"`, `path = "${paths.opt}"`,
      'bin_dir = "/usr/lib/cni"', `conf_dir = "${join(dir, 'net.d')}"`, 'stream_server_port = "10010"',
    ]) t.ok(stdout.includes(want), want);
  });
});
