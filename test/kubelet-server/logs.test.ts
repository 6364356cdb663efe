// The CRI log format and the reader behind /containerLogs: parsing, partial lines, query
// parameters, tail/since/timestamps/limit, and follow across appends, rotation and the
// container stopping.
import t from 'tap';
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { EntryReader, LineAssembler, LogQueryError, parseCRILogLine, parseLogQuery, readLogFile, type LogOptions } from '../../src/kubelet/server/logs.js';

t.test('parseCRILogLine', async (t) => {
  const cases: [string, ReturnType<typeof parseCRILogLine>][] = [
    ['2024-05-01T10:00:00.123456789Z stdout F hello world', { time: '2024-05-01T10:00:00.123456789Z', stream: 'stdout', partial: false, content: 'hello world' }],
    ['2024-05-01T10:00:00.1+02:00 stderr P part', { time: '2024-05-01T10:00:00.1+02:00', stream: 'stderr', partial: true, content: 'part' }],
    ['2024-05-01T10:00:00Z stdout F ', { time: '2024-05-01T10:00:00Z', stream: 'stdout', partial: false, content: '' }],
    ['2024-05-01T10:00:00Z stdout F', { time: '2024-05-01T10:00:00Z', stream: 'stdout', partial: false, content: '' }],
    ['2024-05-01T10:00:00Z stdout F  two  spaces ', { time: '2024-05-01T10:00:00Z', stream: 'stdout', partial: false, content: ' two  spaces ' }],
    ['2024-05-01T10:00:00Z stdout F:x tagged', { time: '2024-05-01T10:00:00Z', stream: 'stdout', partial: false, content: 'tagged' }],
    ['2024-05-01T10:00:00Z stdin F nope', null],
    ['2024-05-01T10:00:00Z stdout X nope', null],
    ['garbage', null],
    ['', null],
  ];
  for (const [line, want] of cases) t.same(parseCRILogLine(line), want, JSON.stringify(line));
});

t.test('partial entries join per stream, interleaved streams stay apart', async (t) => {
  const a = new LineAssembler();
  const e = (stream: 'stdout' | 'stderr', partial: boolean, content: string, time = 'T') => ({ time, stream, partial, content });
  t.equal(a.push(e('stdout', true, 'hel', 'T1')), null);
  t.same(a.push(e('stderr', false, 'err')), { time: 'T', stream: 'stderr', content: 'err' });
  t.equal(a.push(e('stdout', true, 'lo ', 'T2')), null);
  t.same(a.push(e('stdout', false, 'world', 'T3')), { time: 'T1', stream: 'stdout', content: 'hello world' }, 'time of the first piece');
  t.same(a.push(e('stdout', false, 'next')), { time: 'T', stream: 'stdout', content: 'next' });
});

t.test('EntryReader keeps an unfinished line for the next read', async (t) => {
  const r = new EntryReader();
  t.same(r.feed('T stdout F one\nT stdout F tw'), [{ time: 'T', stream: 'stdout', content: 'one' }]);
  t.same(r.feed('o\nnot a log line\n'), [{ time: 'T', stream: 'stdout', content: 'two' }]);
});

t.test('parseLogQuery', async (t) => {
  const now = Date.parse('2024-05-01T10:00:00Z');
  const q = (s: string) => parseLogQuery(new URLSearchParams(s), now);
  t.same(q(''), { follow: false, previous: false, timestamps: false, tailLines: undefined, limitBytes: undefined, sinceMs: undefined });
  t.same(q('follow=true&previous=1&timestamps=true&tailLines=5&limitBytes=10'), { follow: true, previous: true, timestamps: true, tailLines: 5, limitBytes: 10, sinceMs: undefined });
  t.equal(q('sinceSeconds=60').sinceMs, now - 60_000);
  t.equal(q('sinceTime=2024-05-01T09:00:00Z').sinceMs, now - 3_600_000);
  for (const bad of ['tailLines=-1', 'tailLines=x', 'limitBytes=0', 'sinceSeconds=0', 'sinceSeconds=5&sinceTime=2024-05-01T09:00:00Z', 'sinceTime=yesterday']) {
    let err: unknown;
    try { q(bad); } catch (e) { err = e; }
    t.ok(err instanceof LogQueryError, bad);
  }
});

const LOG = [
  '2024-05-01T10:00:00.000000001Z stdout F one',
  '2024-05-01T10:00:01.5Z stderr F two',
  '2024-05-01T10:00:02Z stdout P thr',
  '2024-05-01T10:00:02.1Z stdout F ee',
  '2024-05-01T10:00:03Z stdout F four',
].join('\n') + '\n';

function tmp(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-logs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function read(path: string, opts: LogOptions, running = async () => false): Promise<string> {
  let out = '';
  await readLogFile(path, opts, async (c) => { out += c; }, { signal: new AbortController().signal, running, pollMs: 10, runningCheckMs: 10 });
  return out;
}

t.test('reading a whole file with options', async (t) => {
  const path = join(tmp(t), '0.log');
  writeFileSync(path, LOG);
  const cases: [string, LogOptions, string][] = [
    ['everything', {}, 'one\ntwo\nthree\nfour\n'],
    ['tail 2', { tailLines: 2 }, 'three\nfour\n'],
    ['tail 0', { tailLines: 0 }, ''],
    ['tail more than there is', { tailLines: 50 }, 'one\ntwo\nthree\nfour\n'],
    ['timestamps', { timestamps: true, tailLines: 2 }, '2024-05-01T10:00:02Z three\n2024-05-01T10:00:03Z four\n'],
    ['since', { sinceMs: Date.parse('2024-05-01T10:00:01.5Z') }, 'two\nthree\nfour\n'],
    ['limit mid-line', { limitBytes: 6 }, 'one\ntw'],
    ['limit with tail', { tailLines: 1, limitBytes: 2 }, 'fo'],
  ];
  for (const [name, opts, want] of cases) t.equal(await read(path, opts), want, name);
  t.equal(await read(join(tmp(t), 'absent.log'), {}), '', 'no file yet: nothing, not an error');
});

t.test('follow: appends, a partial line completed later, rotation, then the container stops', async (t) => {
  const dir = tmp(t);
  const path = join(dir, '0.log');
  writeFileSync(path, LOG);
  let out = '';
  let running = true;
  const abort = new AbortController();
  const done = readLogFile(path, { follow: true, tailLines: 1 }, async (c) => { out += c; }, { signal: abort.signal, running: async () => running, pollMs: 10, runningCheckMs: 10 });
  const until = async (want: string) => {
    for (let i = 0; i < 300 && out !== want; i++) await new Promise((r) => setTimeout(r, 10));
    t.equal(out, want);
  };
  await until('four\n');
  appendFileSync(path, '2024-05-01T10:00:04Z stdout F five\n2024-05-01T10:00:05Z stdout F si');
  await until('four\nfive\n');
  appendFileSync(path, 'x\n');
  await until('four\nfive\nsix\n');
  // Rotation: the old file moves away, a new one takes its name.
  renameSync(path, `${path}.1`);
  writeFileSync(path, '2024-05-01T10:00:06Z stdout F seven\n');
  await until('four\nfive\nsix\nseven\n');
  appendFileSync(path, '2024-05-01T10:00:07Z stderr F last words\n');
  running = false;
  await done;
  t.equal(out, 'four\nfive\nsix\nseven\nlast words\n', 'drained after the container stopped');
});

t.test('follow ends when the reader goes away', async (t) => {
  const path = join(tmp(t), '0.log');
  writeFileSync(path, LOG);
  const abort = new AbortController();
  let out = '';
  let asked = 0; // the follower asks whether the container runs only once it idles at the end
  const done = readLogFile(path, { follow: true, tailLines: 0 }, async (c) => { out += c; }, { signal: abort.signal, running: async () => { asked++; return true; }, pollMs: 10, runningCheckMs: 10 });
  await eventually(() => asked > 0, 10_000, 'following');
  abort.abort();
  await done;
  t.equal(out, '');
});

t.test('follow waits for a file the runtime has not created yet', async (t) => {
  const path = join(tmp(t), '0.log');
  let out = '';
  let running = true;
  let asked = 0; // asked while the file is missing: the follower is waiting for it
  const done = readLogFile(path, { follow: true }, async (c) => { out += c; }, { signal: new AbortController().signal, running: async () => { asked++; return running; }, pollMs: 10, runningCheckMs: 10 });
  await eventually(() => asked > 0, 10_000, 'waiting for the file');
  writeFileSync(path, '2024-05-01T10:00:00Z stdout F late\n');
  for (let i = 0; i < 300 && !out; i++) await new Promise((r) => setTimeout(r, 10));
  running = false;
  await done;
  t.equal(out, 'late\n');
});
