// What a hollow kubelet answers on its API (the paths the API server proxies to): a hollow
// container's log is one line saying that it is hollow; exec, attach and port forwarding
// fail with a message saying why, as kubemark's hollow kubelet cannot do them either.
// Messages and codes follow the kubelet's (text bodies; the API server makes Statuses).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../api/kinds.js';
import { renderResourceMetrics } from '../api/stats/resource-metrics.js';
import type { HollowUsage } from './usage.js';

export interface HollowKubeletContext {
  node: string;
  /** The pod as the hollow kubelets' informer has it. */
  pod(namespace: string, name: string): Pod | undefined;
  /** The pods bound to this node, for /stats/summary and /metrics/resource. */
  pods?(): Pod[];
  usage?: HollowUsage;
  /** When this node's process started (the node's startTime in stats). */
  started?: string;
}

class KubeletError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };

/** The line every hollow container has "printed". */
export function hollowLogLine(node: string, pod: Pod, container: string): string {
  return `container "${container}" of pod ${pod.metadata.namespace}/${pod.metadata.name} is hollow: hollow node ${node} runs no processes, so it prints nothing else`;
}

function parts(req: IncomingMessage): { path: string[]; query: URLSearchParams } {
  const url = new URL(req.url ?? '/', 'https://kubelet');
  try {
    return { path: url.pathname.split('/').filter(Boolean).map(decodeURIComponent), query: url.searchParams };
  } catch {
    throw new KubeletError(400, `invalid path ${JSON.stringify(url.pathname)}`);
  }
}

function podOn(ctx: HollowKubeletContext, namespace: string, name: string): Pod {
  const pod = ctx.pod(namespace, name);
  if (!pod || pod.spec?.nodeName !== ctx.node) throw new KubeletError(404, `pod "${name}" does not exist`);
  return pod;
}

function containerStatus(pod: Pod, container: string): ContainerStatus | undefined {
  const all = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return all.find((s) => s.name === container);
}

function inSpec(pod: Pod, container: string): boolean {
  const specs: { name: string }[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])];
  return specs.some((c) => c.name === container);
}

const nanos = (iso: string) => iso.replace(/(\.\d+)?Z$/, (_m, frac: string | undefined) => `${(frac ?? '.').padEnd(10, '0').slice(0, 10)}Z`);

/** GET /containerLogs/{namespace}/{pod}/{container}: the hollow line, under the kubelet's query rules. */
function containerLogs(ctx: HollowKubeletContext, p: string[], q: URLSearchParams, res: ServerResponse): void {
  if (p.length !== 3) throw new KubeletError(400, 'expected /containerLogs/{namespace}/{pod}/{container}');
  const [namespace, name, container] = p;
  const pod = podOn(ctx, namespace, name);
  if (!inSpec(pod, container)) throw new KubeletError(404, `container "${container}" not found in pod "${name}"`);
  const int = (k: string) => {
    const v = q.get(k);
    if (v === null || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new KubeletError(400, `invalid ${k}: ${JSON.stringify(v)}`);
    return n;
  };
  const flag = (k: string) => ['true', '1'].includes(q.get(k) ?? '');
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  const sinceSeconds = int('sinceSeconds');
  const sinceTime = q.get('sinceTime');
  if (flag('previous')) throw new KubeletError(400, `previous terminated container "${container}" in pod "${name}" not found`);
  const st = containerStatus(pod, container);
  const state = st?.state ?? {};
  if (!state.running && !state.terminated) {
    throw new KubeletError(400, `container "${container}" in pod "${name}" is waiting to start: ${state.waiting?.reason ?? 'ContainerCreating'}`);
  }
  const startedAt: string = state.running?.startedAt ?? state.terminated?.startedAt ?? pod.status?.startTime ?? new Date().toISOString();
  const since = sinceTime ? Date.parse(sinceTime) : sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : undefined;
  let text = '';
  if (tailLines !== 0 && !(since !== undefined && Date.parse(startedAt) < since)) {
    text = `${flag('timestamps') ? `${nanos(new Date(Date.parse(startedAt)).toISOString())} ` : ''}${hollowLogLine(ctx.node, pod, container)}\n`;
  }
  let body = Buffer.from(text);
  if (limitBytes !== undefined) body = body.subarray(0, limitBytes);
  // follow: a hollow container prints nothing more; the stream ends after the one line.
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length, 'Cache-Control': 'no-cache' });
  res.end(body);
}

/** The error exec, attach and portForward get: nothing runs, so there is nothing to reach. */
function streamError(ctx: HollowKubeletContext, p: string[]): KubeletError {
  const verb = p[0];
  if (verb === 'portForward') {
    if (p.length !== 3) throw new KubeletError(400, 'expected /portForward/{namespace}/{pod}');
    podOn(ctx, p[1], p[2]);
    return new KubeletError(400, `pod "${p[2]}" is hollow: hollow node ${ctx.node} runs no processes, so there is nothing to forward ports to`);
  }
  if (p.length !== 4) throw new KubeletError(400, `expected /${verb}/{namespace}/{pod}/{container}`);
  const pod = podOn(ctx, p[1], p[2]);
  if (!inSpec(pod, p[3])) throw new KubeletError(404, `container "${p[3]}" not found in pod "${p[2]}"`);
  const what = verb === 'exec' ? 'exec into' : 'attach to';
  return new KubeletError(400, `container "${p[3]}" in pod "${p[2]}" is hollow: hollow node ${ctx.node} runs no processes, so there is nothing to ${what}`);
}

const STREAMS = new Set(['exec', 'attach', 'portForward']);

/** Never throws: every failure is an answer. */
export function handleRequest(ctx: HollowKubeletContext, req: IncomingMessage, res: ServerResponse): void {
  try {
    const { path, query } = parts(req);
    if (STREAMS.has(path[0])) throw streamError(ctx, path);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new KubeletError(405, 'method not allowed');
    if (path[0] === 'healthz' && path.length === 1) return sendText(res, 200, 'ok');
    if (path[0] === 'containerLogs') return containerLogs(ctx, path.slice(1), query, res);
    if (ctx.pods && ctx.usage && path.length === 2 && ((path[0] === 'stats' && path[1] === 'summary') || (path[0] === 'metrics' && path[1] === 'resource'))) {
      const summary = ctx.usage.summary(ctx.node, ctx.started ?? new Date().toISOString(), ctx.pods(), Date.now());
      if (path[0] === 'stats') return sendBody(res, 'application/json', JSON.stringify(summary));
      return sendBody(res, 'text/plain; version=0.0.4; charset=utf-8', renderResourceMetrics(summary));
    }
    throw new KubeletError(404, '404 page not found');
  } catch (e) {
    if (res.headersSent) return void res.destroy();
    if (e instanceof KubeletError) sendText(res, e.code, e.message);
    else sendText(res, 500, (e as Error).message);
  }
}

/** Upgrades (WebSocket or SPDY) only come for exec, attach and portForward: all refused. */
export function handleUpgrade(ctx: HollowKubeletContext, req: IncomingMessage, socket: Duplex): void {
  let err: KubeletError;
  try {
    const { path } = parts(req);
    err = STREAMS.has(path[0]) ? streamError(ctx, path) : new KubeletError(404, '404 page not found');
  } catch (e) {
    err = e instanceof KubeletError ? e : new KubeletError(500, (e as Error).message);
  }
  const body = `${err.message}\n`;
  socket.on('error', () => undefined);
  socket.end(`HTTP/1.1 ${err.code} ${STATUS_TEXT[err.code] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function sendBody(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(`${text}\n`) });
  res.end(`${text}\n`);
}
