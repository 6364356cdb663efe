// Container logs as the runtime writes them (the CRI log format: one entry per line,
// `<RFC3339Nano time> <stdout|stderr> <F|P> <content>`, P marking a partial line continued by
// the next entry of the same stream), read back for `kubectl logs`: tail, since, timestamps,
// byte limit, and follow — new entries as they are written, across the file being rotated
// or replaced, until the reader goes away or the container has stopped.
import { open, stat, type FileHandle } from 'node:fs/promises';

export interface LogEntry {
  /** The runtime's timestamp as written (RFC3339Nano). */
  time: string;
  stream: 'stdout' | 'stderr';
  partial: boolean;
  content: string;
}

/** One line of a CRI log file (without its newline), or null if it is not one. */
export function parseCRILogLine(line: string): LogEntry | null {
  const a = line.indexOf(' ');
  const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
  if (a <= 0 || b < 0) return null;
  const stream = line.slice(a + 1, b);
  if (stream !== 'stdout' && stream !== 'stderr') return null;
  const c = line.indexOf(' ', b + 1);
  const tags = c < 0 ? line.slice(b + 1) : line.slice(b + 1, c);
  // Tags are `:`-separated (F or P first); newer runtimes may add more.
  const kind = tags.split(':')[0];
  if (kind !== 'F' && kind !== 'P') return null;
  return { time: line.slice(0, a), stream, partial: kind === 'P', content: c < 0 ? '' : line.slice(c + 1) };
}

/** Milliseconds since the epoch of an RFC3339(Nano) time; NaN when it does not parse. */
export function logTimeMs(time: string): number {
  // Date.parse takes at most millisecond fractions.
  return Date.parse(time.replace(/(\.\d{3})\d+/, '$1'));
}

export interface LogLine {
  time: string;
  stream: 'stdout' | 'stderr';
  content: string;
}

/** Joins partial entries into whole lines, per stream (stdout and stderr may interleave). */
export class LineAssembler {
  private pending = new Map<string, { time: string; parts: string[] }>();
  push(e: LogEntry): LogLine | null {
    const p = this.pending.get(e.stream);
    if (e.partial) {
      if (p) p.parts.push(e.content);
      else this.pending.set(e.stream, { time: e.time, parts: [e.content] });
      return null;
    }
    if (!p) return { time: e.time, stream: e.stream, content: e.content };
    this.pending.delete(e.stream);
    return { time: p.time, stream: e.stream, content: p.parts.join('') + e.content };
  }
}

export interface LogOptions {
  follow?: boolean;
  tailLines?: number;
  timestamps?: boolean;
  /** Only lines at or after this time (ms since epoch). */
  sinceMs?: number;
  limitBytes?: number;
}

/** The query parameters of /containerLogs (and pods/log), as Kubernetes names them. */
export function parseLogQuery(q: URLSearchParams, now = Date.now()): LogOptions & { previous: boolean } {
  const bool = (k: string) => ['true', '1'].includes(q.get(k) ?? '');
  const int = (k: string) => {
    const v = q.get(k);
    if (v === null || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) throw new LogQueryError(`invalid ${k}: ${JSON.stringify(v)}`);
    return n;
  };
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  const sinceSeconds = int('sinceSeconds');
  if (tailLines !== undefined && tailLines < 0) throw new LogQueryError('tailLines: Invalid value: must be greater than or equal to 0');
  if (limitBytes !== undefined && limitBytes < 1) throw new LogQueryError('limitBytes: Invalid value: must be greater than 0');
  if (sinceSeconds !== undefined && sinceSeconds < 1) throw new LogQueryError('sinceSeconds: Invalid value: must be greater than 0');
  const sinceTime = q.get('sinceTime');
  if (sinceTime && sinceSeconds !== undefined) throw new LogQueryError('at most one of sinceTime or sinceSeconds may be specified');
  let sinceMs: number | undefined;
  if (sinceSeconds !== undefined) sinceMs = now - sinceSeconds * 1000;
  if (sinceTime) {
    sinceMs = logTimeMs(sinceTime);
    if (Number.isNaN(sinceMs)) throw new LogQueryError(`invalid sinceTime: ${JSON.stringify(sinceTime)}`);
  }
  return { follow: bool('follow'), previous: bool('previous'), timestamps: bool('timestamps'), tailLines, limitBytes, sinceMs };
}

export class LogQueryError extends Error {}

/** Formats lines for the reader, applying since, timestamps and the byte limit. */
export class LogWriter {
  private written = 0;
  constructor(private opts: LogOptions, private out: (chunk: string) => Promise<void>) {}
  get full(): boolean {
    return this.opts.limitBytes !== undefined && this.written >= this.opts.limitBytes;
  }
  async write(lines: LogLine[]): Promise<void> {
    let chunk = '';
    for (const l of lines) {
      if (this.opts.sinceMs !== undefined && !(logTimeMs(l.time) >= this.opts.sinceMs)) continue;
      chunk += this.opts.timestamps ? `${l.time} ${l.content}\n` : `${l.content}\n`;
    }
    if (!chunk) return;
    if (this.opts.limitBytes !== undefined) {
      const left = this.opts.limitBytes - this.written;
      if (left <= 0) return;
      const bytes = Buffer.from(chunk);
      if (bytes.length > left) chunk = bytes.subarray(0, left).toString();
      this.written += Math.min(bytes.length, left);
    }
    await this.out(chunk);
  }
}

/** Splits raw bytes into CRI entries, keeping an unfinished last line for the next read. */
export class EntryReader {
  private rest = '';
  private assembler = new LineAssembler();
  feed(text: string): LogLine[] {
    const data = this.rest + text;
    const lines = data.split('\n');
    this.rest = lines.pop() ?? '';
    const out: LogLine[] = [];
    for (const raw of lines) {
      const e = parseCRILogLine(raw);
      if (!e) continue;
      const l = this.assembler.push(e);
      if (l) out.push(l);
    }
    return out;
  }
}

export interface FollowControl {
  /** Aborted when the reader goes away. */
  signal: AbortSignal;
  /** Whether the container still runs (follow ends after it stops and the file is drained). */
  running: () => Promise<boolean>;
  pollMs?: number;
  /** How often `running` is asked while the file is idle. */
  runningCheckMs?: number;
}

const CHUNK = 64 * 1024;

/** Streams the log at `path` to `out` per `opts`; with `follow`, until `ctl` says stop. */
export async function readLogFile(path: string, opts: LogOptions, out: (chunk: string) => Promise<void>, ctl: FollowControl): Promise<void> {
  const writer = new LogWriter(opts, out);
  let fh = await openIfExists(path);
  if (!fh && !opts.follow) return;
  while (!fh) {
    if (ctl.signal.aborted || !(await ctl.running())) return;
    await sleep(ctl.pollMs ?? 200, ctl.signal);
    fh = await openIfExists(path);
  }
  try {
    const reader = new EntryReader();
    let offset = 0;
    // Everything written so far, then the tail of it.
    const first: LogLine[] = [];
    for (;;) {
      const { text, bytes } = await readFrom(fh, offset);
      if (!bytes) break;
      offset += bytes;
      first.push(...reader.feed(text));
    }
    const tail = opts.tailLines !== undefined ? first.slice(Math.max(0, first.length - opts.tailLines)) : first;
    await writer.write(opts.tailLines === 0 ? [] : tail);
    if (!opts.follow) return;
    let lastRunningCheck = Date.now();
    for (;;) {
      if (ctl.signal.aborted || writer.full) return;
      const { text, bytes } = await readFrom(fh, offset);
      if (bytes) {
        offset += bytes;
        await writer.write(reader.feed(text));
        continue;
      }
      // Drained: was the file replaced (rotation, a new container's file) or truncated?
      const now = await stat(path).catch(() => null); // removed with its container: keep reading what we hold open
      const mine = await fh.stat();
      if (now && (now.ino !== mine.ino || now.dev !== mine.dev || now.size < offset)) {
        await fh.close();
        fh = await openIfExists(path);
        offset = 0;
        if (!fh) return;
        continue;
      }
      if (Date.now() - lastRunningCheck >= (ctl.runningCheckMs ?? 1000)) {
        lastRunningCheck = Date.now();
        if (!(await ctl.running())) {
          const last = await readFrom(fh, offset);
          if (last.bytes) await writer.write(reader.feed(last.text));
          return;
        }
      }
      await sleep(ctl.pollMs ?? 200, ctl.signal);
    }
  } finally {
    await fh?.close().catch(() => undefined); // closing a read-only handle loses nothing
  }
}

async function openIfExists(path: string): Promise<FileHandle | null> {
  try {
    return await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function readFrom(fh: FileHandle, offset: number): Promise<{ text: string; bytes: number }> {
  const buf = Buffer.alloc(CHUNK);
  const { bytesRead } = await fh.read(buf, 0, CHUNK, offset);
  // Cut at the last newline so a multi-byte character is never split between reads.
  const nl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
  if (nl < 0) return bytesRead === CHUNK ? { text: buf.toString('utf8', 0, bytesRead), bytes: bytesRead } : { text: '', bytes: 0 };
  return { text: buf.toString('utf8', 0, nl + 1), bytes: nl + 1 };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
