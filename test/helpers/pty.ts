// Runs a command on a pseudo-terminal of its own (Python's pty module: Node has none without
// an addon) and drives it like a person at a terminal: wait for output, type, resize the window
// (TIOCSWINSZ on the master; the kernel signals SIGWINCH to the command). kubectl -t needs a
// real terminal on its side, so attach -it and run -it are tested through this.
import { spawn } from 'node:child_process';

export type PtyStep =
  | { expect: string; timeoutMs?: number }
  | { send: string }
  | { resize: { rows: number; cols: number } }
  /** SIGTERM to the command (a session that does not end by itself, such as attach). */
  | { terminate: true };

export interface PtyResult {
  code: number | null;
  /** Everything the command wrote to its terminal. */
  output: string;
  /** The step that timed out, if one did. */
  failed?: string;
}

const DRIVER = String.raw`
import fcntl, json, os, pty, re, select, signal, struct, sys, termios, time
spec = json.loads(sys.argv[1])
def winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
pid, fd = pty.fork()
if pid == 0:
    os.execvp(spec['argv'][0], spec['argv'])
winsize(fd, spec['rows'], spec['cols'])
out = b''
def pump(timeout):
    global out
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        return False
    if not data:
        return False
    out += data
    return True
failed = None
seen = 0
for step in spec['steps']:
    if 'send' in step:
        os.write(fd, step['send'].encode())
    elif 'resize' in step:
        winsize(fd, step['resize']['rows'], step['resize']['cols'])
    elif 'terminate' in step:
        os.kill(pid, signal.SIGTERM)
    else:
        pat = re.compile(step['expect'].encode())
        deadline = time.time() + step.get('timeoutMs', 30000) / 1000
        alive = True
        while True:
            m = pat.search(out, seen)
            if m:
                seen = m.end()
                break
            if not alive or time.time() > deadline:
                failed = step['expect']
                break
            alive = pump(0.1)
        if failed:
            break
if failed:
    os.kill(pid, signal.SIGKILL)
deadline = time.time() + 60
code = None
while time.time() < deadline:
    pump(0.1)
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        while pump(0.1):
            pass
        code = os.waitstatus_to_exitcode(status)
        break
if code is None:
    os.kill(pid, signal.SIGKILL)
print(json.dumps({'code': code, 'output': out.decode('utf-8', 'replace'), 'failed': failed}))
`;

/** Runs `argv` on a terminal of `rows`×`cols` and plays `steps`; resolves when it exits (killed after a failed step or 60 s more). */
export function runOnPty(argv: string[], steps: PtyStep[], size = { rows: 24, cols: 80 }): Promise<PtyResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-c', DRIVER, JSON.stringify({ argv, steps, ...size })], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.once('error', reject);
    child.once('close', (code) => {
      try {
        const r = JSON.parse(stdout) as PtyResult;
        resolve({ code: r.code, output: r.output, ...(r.failed ? { failed: r.failed } : {}) });
      } catch {
        reject(new Error(`pty driver exited ${code}: ${stderr}`));
      }
    });
  });
}
