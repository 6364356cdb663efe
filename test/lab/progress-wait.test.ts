// The lab's wait for its control plane goes on while the process makes progress (log lines,
// CPU) and gives up on one that made none, naming what it waited for. Real processes, no
// root; the deadlines are wide and nothing measured is asserted on.
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitWhileProgressing } from '../../src/lab/progress-wait.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-progress-wait-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A node process whose log says "started" before the wait begins (its own start is not what is timed). */
async function start(name: string, script: string): Promise<{ pid: number; log: string }> {
  const log = join(dir, `${name}.log`);
  const child = spawn(process.execPath, ['-e', `console.log("started"); ${script}`], { stdio: ['ignore', openSync(log, 'a'), 'ignore'] });
  t.teardown(() => { child.kill('SIGKILL'); });
  while (!readFileSync(log, 'utf8').includes('started')) await new Promise((r) => setTimeout(r, 20));
  return { pid: child.pid!, log };
}
const ready = (log: string) => () => readFileSync(log, 'utf8').includes('ready');

t.test('a slow start that keeps logging is waited for past the stall window', async (t) => {
  // 6 s to get ready, a line every 300 ms; a 2 s stall window would end a fixed-deadline wait.
  const p = await start('slow', 'let i = 0; const iv = setInterval(() => { console.log(`step ${++i}`); if (i === 20) { console.log("ready"); clearInterval(iv); } }, 300); setInterval(() => {}, 1e6);');
  await waitWhileProgressing({ what: 'slow to log ready', ...p, check: ready(p.log), stallMs: 2_000, limitMs: 60_000, pollMs: 50 });
  t.match(readFileSync(p.log, 'utf8'), /step 19\nstep 20\nready/);
});

t.test('a process that uses CPU but logs nothing is still progressing', async (t) => {
  const p = await start('busy', 'const until = Date.now() + 6000; while (Date.now() < until); console.log("ready"); setInterval(() => {}, 1e6);');
  await waitWhileProgressing({ what: 'busy to log ready', ...p, check: ready(p.log), stallMs: 2_000, limitMs: 60_000, minCpuSeconds: 0.02, pollMs: 50 });
  t.pass('waited through 6 s of silent CPU with a 2 s stall window');
});

t.test('a hung process is given up on, with what was awaited and its last log lines', async (t) => {
  const p = await start('hung', 'console.log("opening the store"); setInterval(() => {}, 1e6);');
  await t.rejects(waitWhileProgressing({ what: 'the control plane to log "capstan is ready"', ...p, check: ready(p.log), stallMs: 1_000, limitMs: 60_000, pollMs: 50 }),
    /gave up waiting for the control plane to log "capstan is ready" after \d+ s: it made no progress \(no log line, under 0\.5 s of CPU\) for \d+ s; pid \d+ used [\d.]+ s of CPU meanwhile\. The end of .*hung\.log:\nstarted\nopening the store/);
});

t.test('a busy loop that never gets there ends at the limit', async (t) => {
  const p = await start('loop', 'setInterval(() => console.log("retrying"), 100);');
  await t.rejects(waitWhileProgressing({ what: 'loop to log ready', ...p, check: ready(p.log), stallMs: 5_000, limitMs: 1_500, pollMs: 50 }),
    /gave up waiting for loop to log ready after \d+ s: it was still busy after the limit of 2 s/);
});

t.test('a check that reports a failure ends the wait with it', async (t) => {
  const p = await start('exit', 'setInterval(() => {}, 1e6);');
  await t.rejects(waitWhileProgressing({ what: 'x', ...p, check: () => 'the control plane exited', stallMs: 1_000, limitMs: 60_000 }), /^the control plane exited$/);
});
