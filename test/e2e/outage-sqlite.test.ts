// `capstan up` on SQLite whose data dir is a small tmpfs filled to the last byte for 30 s.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { survivesOutage } from './outage-scenario.js';

t.test('capstan up survives a full disk under its SQLite store for 30 s', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-fulldisk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', dataDir]);
  let up: Awaited<ReturnType<typeof startCapstanUp>> | undefined;
  t.teardown(async () => {
    await up?.stop();
    if (spawnSync('umount', [dataDir]).status !== 0) spawnSync('umount', ['-l', dataDir]);
    rmdirSync(dataDir);
  });
  up = await startCapstanUp(t, ['--hollow-nodes', '2'], { dataDir });
  const filler = join(dataDir, 'filler');
  await survivesOutage(t, up, {
    // dd stops at ENOSPC with the filesystem full to its last page.
    begin: async () => { spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k'], { stdio: 'ignore' }); },
    end: async () => { rmSync(filler, { force: true }); },
  });
});
