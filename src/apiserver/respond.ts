// Writing responses: objects as JSON or YAML, errors as Status objects.
import type { ServerResponse } from 'node:http';
import yaml from 'js-yaml';
import { StatusError, internalError } from './errors.js';
import type { ResponseKind } from './negotiate.js';

const indented = new WeakSet<ServerResponse>();

/** Objects sent on `res` are indented, as `?pretty=true` (or a curl or browser client) asks. */
export function indentReplies(res: ServerResponse): void {
  indented.add(res);
}

/**
 * A list whose items are already serialised, each as JSON.stringify writes it: the same bytes
 * as sendObject of `{...head, items}`, copied into one body instead of serialising the items
 * again or joining them as text (a megabyte string then encoded as UTF-8 cost more than the
 * TLS write of it).
 */
export function sendEncodedList(res: ServerResponse, code: number, head: Record<string, unknown>, items: Buffer[], decoded: () => unknown[]): void {
  if (indented.has(res)) return sendObject(res, code, { ...head, items: decoded() });
  if (res.headersSent) return;
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(head).slice(0, -1)},"items":[`)];
  items.forEach((item, i) => { if (i > 0) parts.push(COMMA); parts.push(item); });
  parts.push(CLOSE_LIST);
  const body = Buffer.concat(parts);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': body.length, 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

const COMMA = Buffer.from(',');
const CLOSE_LIST = Buffer.from(']}');

export function sendObject(res: ServerResponse, code: number, body: unknown, kind: ResponseKind = 'json', contentType?: string): void {
  if (res.headersSent) return;
  let text: string;
  let type: string;
  if (kind === 'yaml') {
    text = yaml.dump(body, { lineWidth: -1, noRefs: true });
    type = 'application/yaml';
  } else {
    text = indented.has(res) ? JSON.stringify(body, null, 2) : JSON.stringify(body);
    type = contentType ?? 'application/json';
  }
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

export function sendText(res: ServerResponse, code: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  if (res.headersSent) return;
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

/** Any thrown value becomes a Status; unexpected ones are logged and answered 500 without a stack. */
export function toStatusError(err: unknown, log: (msg: string, fields: Record<string, unknown>) => void): StatusError {
  if (err instanceof StatusError) return err;
  log('internal error', { error: err instanceof Error ? err.stack ?? err.message : String(err) });
  return internalError(err instanceof Error ? err.message : String(err));
}

export function sendError(res: ServerResponse, err: StatusError, kind: ResponseKind = 'json'): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // The rest of an oversized body is not worth reading: the connection ends with the answer.
  if (err.code === 413) res.setHeader('Connection', 'close');
  if (err.details?.retryAfterSeconds) res.setHeader('Retry-After', String(err.details.retryAfterSeconds));
  sendObject(res, err.code, err.toStatus(), kind === 'yaml' ? 'yaml' : 'json');
}
