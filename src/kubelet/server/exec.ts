// One exec session: the client's WebSocket (v5/v4 channels) joined to the runtime's
// process (a remote command on the CRI stream server). The Status the runtime reports ends
// the session on the error channel, then the socket closes normally.
import type WebSocket from 'ws';
import { CHANNEL, failureStatus, frame, parseClientMessage } from './channels.js';
import type { RemoteCommand } from './remote-command.js';

export interface ExecStreams {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Bridges `ws` to the command `start` opens; messages that arrive before it is open wait. */
export function bridgeExec(ws: WebSocket, protocol: string, streams: ExecStreams, start: () => Promise<RemoteCommand>, log: (msg: string, f?: Record<string, unknown>) => void): Promise<void> {
  return new Promise((resolve) => {
    let rc: RemoteCommand | null = null;
    let finished = false;
    const early: Buffer[] = [];
    const finish = (status: Buffer | null) => {
      if (finished) return;
      finished = true;
      if (ws.readyState === ws.OPEN) {
        if (status?.length) ws.send(frame(CHANNEL.error, status));
        ws.close(1000);
      }
      resolve();
    };
    const handle = (msg: Buffer) => {
      const m = parseClientMessage(msg, protocol);
      if (!rc) return;
      if (m.kind === 'stdin' && streams.stdin) rc.stdin(m.data);
      else if (m.kind === 'resize' && streams.tty) rc.resize(m.raw);
      else if (m.kind === 'close' && m.channel === CHANNEL.stdin) rc.closeStdin();
    };
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const msg = isBinary ? data : Buffer.from(data);
      if (rc) handle(msg);
      else early.push(msg);
    });
    ws.on('close', () => {
      rc?.abort();
      finish(null);
    });
    ws.on('error', () => ws.terminate());
    start().then((cmd) => {
      rc = cmd;
      if (finished) return cmd.abort();
      cmd.onStdout((d) => ws.send(frame(CHANNEL.stdout, d)));
      cmd.onStderr((d) => ws.send(frame(CHANNEL.stderr, d)));
      for (const m of early.splice(0)) handle(m);
      void cmd.done.then((status) => finish(status));
    }, (e: Error) => {
      log('exec failed', { error: e.message });
      finish(Buffer.from(JSON.stringify(failureStatus(e.message))));
    });
  });
}
