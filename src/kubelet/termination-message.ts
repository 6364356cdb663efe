// Termination messages, as upstream's kubelet reads them: each container instance gets an
// empty, world-writable file on the node bind-mounted at its terminationMessagePath; when it
// has exited, the last 4 KiB of that file become state.terminated.message. With
// terminationMessagePolicy FallbackToLogsOnError, a failed container that wrote nothing
// there gets the tail of its log instead (80 lines, 2 KiB at most). The whole pod keeps at
// most 12 KiB: each container's message is cut to its share.
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TERMINATION_MESSAGE_PATH_ANNOTATION, TERMINATION_MESSAGE_POLICY_ANNOTATION, containerLogPath } from './labels.js';
import type { ContainerState } from './runtime-state.js';

export const MAX_CONTAINER_MESSAGE = 4 * 1024;
export const MAX_POD_MESSAGES = 12 * 1024;
export const MAX_LOG_MESSAGE = 2 * 1024;
export const MAX_LOG_LINES = 80;

/** The node-side file for one container instance: <root>/pods/<uid>/containers/<name>/<restartCount>. */
export function terminationMessageFile(rootDir: string, uid: string, container: string, restartCount: number): string {
  return join(rootDir, 'pods', uid, 'containers', container, String(restartCount));
}

/** Creates the instance's file empty and writable by any user the container runs as. */
export async function createTerminationMessageFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, '');
  await chmod(path, 0o666);
}

/** The last `max` bytes of a file ('' when absent). */
function tail(path: string, max: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch { // never created (no path, or the container never got that far): no message
    return Buffer.alloc(0);
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, max);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The container's output from its CRI log (`<ts> <stream> <P|F> <text>` lines), last lines and bytes only. */
export function logTail(path: string, lines = MAX_LOG_LINES, bytes = MAX_LOG_MESSAGE): string {
  // Read generously: each CRI line carries ~40 bytes of timestamp and tags.
  const raw = tail(path, (bytes + lines * 64) * 2).toString('utf8').split('\n');
  let text = '';
  for (const line of raw.slice(1)) {
    const m = /^\S+ (?:stdout|stderr) ([PF]) (.*)$/.exec(line);
    if (m) text += m[1] === 'F' ? `${m[2]}\n` : m[2];
  }
  const kept = text.split('\n');
  if (kept.at(-1) === '') kept.pop();
  const out = kept.slice(-lines).join('\n') + (kept.length ? '\n' : '');
  const buf = Buffer.from(out, 'utf8');
  return buf.length > bytes ? buf.subarray(buf.length - bytes).toString('utf8') : out;
}

export interface MessageSource { rootDir: string; podUID: string; logDir: string }

/** The message an exited container leaves: the runtime's, then ": " and the file's (or its log's). */
export function terminationMessage(c: ContainerState, s: MessageSource): string {
  const path = c.annotations[TERMINATION_MESSAGE_PATH_ANNOTATION];
  let text = path ? tail(terminationMessageFile(s.rootDir, s.podUID, c.name, c.restartCount), MAX_CONTAINER_MESSAGE).toString('utf8') : '';
  const fallback = c.annotations[TERMINATION_MESSAGE_POLICY_ANNOTATION] === 'FallbackToLogsOnError' && c.exitCode !== 0 && c.reason !== 'ContainerCannotRun';
  if (!text && fallback) text = logTail(join(s.logDir, containerLogPath(c.name, c.restartCount)));
  if (!text) return c.message;
  return c.message ? `${c.message}: ${text}` : text;
}

/** Cuts each message to the pod's per-container share of 12 KiB (upstream keeps the start). */
export function truncateForPod(message: string, containers: number): string {
  const share = Math.floor(MAX_POD_MESSAGES / Math.max(1, containers));
  const buf = Buffer.from(message, 'utf8');
  return buf.length > share ? buf.subarray(0, share).toString('utf8') : message;
}
