// Real child processes: started here, stopped by the module under test, and killed in
// teardown whatever happens.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { alive, killNow, parentPid, processArgs, startTime, stopChild, terminate } from '../../src/util/process.js';

/** A node child that says "ready" once its SIGTERM handling is in place. */
async function child(t: Test, ignoreTerm: boolean): Promise<ChildProcess> {
  const code = `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''} process.stdout.write('ready'); setInterval(() => {}, 1000);`;
  const c = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => { if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); });
  await once(c.stdout!, 'data');
  return c;
}

t.test('/proc readers see a live child and stop seeing it once it is reaped', async (t) => {
  const c = await child(t, false);
  const pid = c.pid!;
  t.ok(alive(pid));
  t.equal(parentPid(pid), process.pid);
  t.equal(processArgs(pid)?.[0], process.execPath);
  t.match(startTime(pid), /^\d+$/);
  c.kill('SIGKILL');
  await once(c, 'exit');
  t.notOk(alive(pid));
  t.equal(startTime(pid), null);
});

const cases: { name: string; ignoreTerm: boolean; signal: NodeJS.Signals }[] = [
  { name: 'a process that honours SIGTERM exits on it', ignoreTerm: false, signal: 'SIGTERM' },
  { name: 'a process that ignores SIGTERM is SIGKILLed after the grace period', ignoreTerm: true, signal: 'SIGKILL' },
];

for (const c of cases) {
  t.test(`terminate by PID: ${c.name}`, async (t) => {
    const p = await child(t, c.ignoreTerm);
    const exit = once(p, 'exit');
    t.equal(await terminate([p.pid!], 300), true);
    t.equal((await exit)[1], c.signal);
  });

  t.test(`stopChild: ${c.name}`, async (t) => {
    const p = await child(t, c.ignoreTerm);
    t.equal(await stopChild(p, 300), true);
    t.equal(p.signalCode, c.signal);
    t.equal(await stopChild(p, 300), true, 'stopping an exited child is a no-op');
  });
}

t.test('killNow: SIGKILL at once; PIDs already gone are fine', async (t) => {
  const p = await child(t, true);
  const exit = once(p, 'exit');
  const none = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;
  t.equal(await killNow([p.pid!, none]), true);
  t.equal((await exit)[1], 'SIGKILL');
});

t.test('signal: a PID that is gone is no error', async (t) => {
  const { signal } = await import('../../src/util/process.js');
  // Above pid_max no process can exist (a reaped child's PID could already be someone else's).
  const none = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;
  t.doesNotThrow(() => signal(none, 'SIGTERM'));
});
