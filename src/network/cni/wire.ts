// The thin plugin's wire format (cni/capstan-cni.c): a header of "KEY=value" lines ending
// in an empty line, then the plugin's stdin; the answer is "<exit code>\n" then its stdout.
import { CNIError, CNI_ERROR } from './errors.js';

export const WIRE_MAGIC = 'CAPSTAN-CNI 1';

export interface CNIRequest {
  /** The plugin process's pid (its mount namespace resolves CNI_NETNS). */
  pid?: number;
  env: Record<string, string>;
  stdin: Buffer;
}

export function parseRequest(buf: Buffer): CNIRequest {
  const end = buf.indexOf('\n\n');
  if (end < 0) throw new CNIError(CNI_ERROR.decode, 'malformed request from the plugin', 'no header terminator');
  const lines = buf.subarray(0, end).toString('utf8').split('\n');
  if (lines[0] !== WIRE_MAGIC) throw new CNIError(CNI_ERROR.incompatibleVersion, 'the installed plugin binary speaks another protocol', lines[0] ?? '');
  const env: Record<string, string> = {};
  let pid: number | undefined;
  for (const line of lines.slice(1)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq), value = line.slice(eq + 1);
    if (key === 'PID') pid = Number(value) || undefined;
    else env[key] = value;
  }
  return { pid, env, stdin: buf.subarray(end + 2) };
}

export function encodeRequest(req: CNIRequest): Buffer {
  const header = [WIRE_MAGIC, ...(req.pid ? [`PID=${req.pid}`] : []), ...Object.entries(req.env).map(([k, v]) => `${k}=${v}`)].join('\n');
  return Buffer.concat([Buffer.from(`${header}\n\n`), req.stdin]);
}

export function encodeReply(code: number, stdout: string): Buffer {
  return Buffer.from(`${code}\n${stdout}`);
}

export function parseReply(buf: Buffer): { code: number; stdout: string } {
  const nl = buf.indexOf('\n');
  if (nl < 0) throw new Error('malformed reply');
  return { code: Number(buf.subarray(0, nl).toString()), stdout: buf.subarray(nl + 1).toString('utf8') };
}
