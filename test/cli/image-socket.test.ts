// Which containerd `capstan image import` loads into: the endpoint given; else a capstan
// node's under --data-dir (an error when it has none); else `capstan up`'s or `capstan
// join`'s default data dir in the current directory; else the system's.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSocket } from '../../src/cli/image.js';

t.test('the import finds the node\'s containerd', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'capstan-image-socket-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const socketIn = (dir: string) => {
    mkdirSync(join(cwd, dir, 'containerd'), { recursive: true });
    writeFileSync(join(cwd, dir, 'containerd', 'containerd.sock'), '');
    return join(cwd, dir, 'containerd', 'containerd.sock');
  };
  t.equal(importSocket('unix:///x/c.sock', undefined, cwd), '/x/c.sock', 'an endpoint wins');
  t.equal(importSocket(undefined, undefined, cwd), '/run/containerd/containerd.sock', 'no capstan node here: the system\'s');
  const joined = socketIn('.capstan-node');
  t.equal(importSocket(undefined, undefined, cwd), joined, 'a `capstan join` node');
  const up = socketIn('.capstan');
  t.equal(importSocket(undefined, undefined, cwd), up, '`capstan up` first');
  const lab = socketIn('lab/nodes/node-1');
  t.equal(importSocket(undefined, 'lab/nodes/node-1', cwd), lab, '--data-dir');
  t.throws(() => importSocket(undefined, 'nowhere', cwd), /no capstan node's containerd under/, 'a --data-dir without one is an error');
});
