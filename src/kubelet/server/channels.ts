// The WebSocket channel protocol of exec/attach (k8s.io/apimachinery wsstream and the
// remotecommand versions): every binary message starts with a channel byte. v4 carries a
// Status JSON on the error channel; v5 adds channel 255 to close a channel (stdin) while the
// others stay open.
import { fallbacks } from '../../log/fallback.js';

export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

/** What the kubelet speaks, preferred first (kubectl ≥1.30 offers v5 first). */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

export function pickProtocol(offered: Iterable<string>): string | false {
  const set = new Set(offered);
  return EXEC_PROTOCOLS.find((p) => set.has(p)) ?? false;
}

export function frame(channel: number, data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from([channel]), body]);
}

export type ClientMessage =
  | { kind: 'stdin'; data: Buffer }
  | { kind: 'resize'; width: number; height: number; raw: Buffer }
  | { kind: 'close'; channel: number }
  | { kind: 'ignored'; channel: number };

const fallback = fallbacks('kubelet');

/** A message from the client; `protocol` decides whether channel 255 means anything. */
export function parseClientMessage(msg: Buffer, protocol: string): ClientMessage {
  if (msg.length === 0) return { kind: 'ignored', channel: -1 };
  const ch = msg[0];
  const data = msg.subarray(1);
  if (ch === CHANNEL.stdin) return { kind: 'stdin', data };
  if (ch === CHANNEL.resize) {
    try {
      const size = JSON.parse(data.toString()) as { Width?: unknown; Height?: unknown };
      return { kind: 'resize', width: Number(size.Width ?? 0), height: Number(size.Height ?? 0), raw: data };
    } catch (e) {
      fallback('exec-resize-message-ignored', { error: e });
      return { kind: 'ignored', channel: ch };
    }
  }
  if (ch === CHANNEL.close && protocol.startsWith('v5.') && data.length >= 1) return { kind: 'close', channel: data[0] };
  return { kind: 'ignored', channel: ch };
}

export interface Status {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason: string; message: string }[] };
}

export function successStatus(): Status {
  return { metadata: {}, status: 'Success' };
}

export function exitStatus(code: number, command: string[]): Status {
  if (code === 0) return successStatus();
  return {
    metadata: {}, status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

export function failureStatus(message: string): Status {
  return { metadata: {}, status: 'Failure', message };
}

/** The exit code a Status reports (0 for Success, null when it carries none). */
export function exitCodeOf(s: Status): number | null {
  if (s.status === 'Success') return 0;
  const cause = s.details?.causes.find((c) => c.reason === 'ExitCode');
  return cause ? Number(cause.message) : null;
}
