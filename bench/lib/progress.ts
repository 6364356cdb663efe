// Progress of a bench run: on a terminal one live line for the running suite (its phase and
// elapsed time, rewritten in place) that becomes a result line when it ends; elsewhere plain
// timestamped lines, one per phase, for CI logs.
import type { SuiteStatus } from './schema.js';

export interface ProgressDisplay {
  start(suite: string): void;
  phase(suite: string, phase: string): void;
  end(suite: string, status: SuiteStatus, seconds: number, detail?: string): void;
  note(text: string): void;
  close(): void;
}

const MARK: Record<SuiteStatus, string> = { passed: '✓', skipped: '–', failed: '✗' };
const secs = (s: number) => `${s.toFixed(1)} s`;

export function progressDisplay(out: NodeJS.WriteStream): ProgressDisplay {
  return out.isTTY ? new LiveLine(out) : new PlainLines(out);
}

class PlainLines implements ProgressDisplay {
  private started = Date.now();
  constructor(private out: NodeJS.WritableStream) {}
  private line(text: string) { this.out.write(`[${secs((Date.now() - this.started) / 1000).padStart(8)}] ${text}\n`); }
  start(suite: string) { this.line(`${suite}: started`); }
  phase(suite: string, phase: string) { this.line(`${suite}: ${phase}`); }
  end(suite: string, status: SuiteStatus, seconds: number, detail?: string) { this.line(`${suite}: ${status} in ${secs(seconds)}${detail ? ` (${detail})` : ''}`); }
  note(text: string) { this.line(text); }
  close() {}
}

const SPIN = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

class LiveLine implements ProgressDisplay {
  private current?: { suite: string; phase: string; since: number };
  private timer?: NodeJS.Timeout;
  private frame = 0;
  constructor(private out: NodeJS.WriteStream) {}

  private draw() {
    if (!this.current) return;
    const { suite, phase, since } = this.current;
    const text = `${SPIN[this.frame++ % SPIN.length]} ${suite.padEnd(18)} ${secs((Date.now() - since) / 1000).padStart(8)}  ${phase}`;
    this.out.write(`\r\x1b[2K${text.slice(0, Math.max(40, (this.out.columns || 100) - 1))}`);
  }

  start(suite: string) {
    this.current = { suite, phase: 'starting', since: Date.now() };
    this.timer ??= setInterval(() => this.draw(), 200);
    this.draw();
  }
  phase(suite: string, phase: string) {
    if (this.current?.suite === suite) this.current.phase = phase;
    this.draw();
  }
  end(suite: string, status: SuiteStatus, seconds: number, detail?: string) {
    this.current = undefined;
    this.out.write(`\r\x1b[2K${MARK[status]} ${suite.padEnd(18)} ${secs(seconds).padStart(8)}  ${status}${detail ? `: ${detail}` : ''}\n`);
  }
  note(text: string) {
    this.out.write(`\r\x1b[2K${text}\n`);
    this.draw();
  }
  close() {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
