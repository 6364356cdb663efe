// pods/log, pods/exec (and attach, portforward): the API server finds the pod's node and proxies to its
// kubelet over HTTPS, presenting the kubelet-client certificate. Logs stream back as they
// come; exec upgrades are spliced: the upgrade request is forwarded to the kubelet and, once
// it answers 101, the two connections are joined byte for byte, so WebSocket frames pass
// through untouched. Any other answer becomes a Status, as for logs.
//
// Where the kubelet is: only an address the Node reports in status.addresses (InternalIP,
// else ExternalIP, else Hostname; upstream's --kubelet-preferred-address-types puts Hostname
// first, capstan prefers addresses that need no lookup) and the port in
// status.daemonEndpoints. A Hostname is resolved by the system resolver (/etc/hosts, then
// DNS) only for a Node that reports no IP at all; capstan's kubelets and hollow nodes always
// report an InternalIP, so tests never resolve one.
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../../api/object.js';
import { badRequest, StatusError } from '../errors.js';
import { queryBool } from '../query.js';
import type { Registries } from '../registry/index.js';
import type { HandlerContext } from './context.js';
import { splice } from '../../util/splice.js';
import { formatServerTiming } from '../../util/server-timing.js';
import { timingEntries } from '../trace/report.js';
import { now, type RequestTrace } from '../trace/request-trace.js';
import { acceptTunnel, tunneledProtocols } from './stream-tunnel.js';

export interface KubeletClientConfig {
  certPem: string;
  keyPem: string;
  /** CA that signed the kubelets' serving certificates. */
  caPem: string;
}

interface Target {
  pod: KubeObject;
  container: string;
  host: string;
  port: number;
}

const LOG_FLAGS = ['follow', 'previous', 'timestamps'];
const LOG_PARAMS = ['tailLines', 'sinceSeconds', 'sinceTime', 'limitBytes'];
const STREAM_FLAGS = ['stdin', 'stdout', 'stderr', 'tty'];
const STREAM_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);

export function isStreamSubresource(resource: string, subresource: string): boolean {
  return resource === 'pods' && STREAM_SUBRESOURCES.has(subresource);
}

/** The pod, the container a request means and where its kubelet listens. */
async function target(registries: Registries, namespace: string, name: string, container: string | null, verb: 'log' | 'exec' | 'attach' | 'portforward'): Promise<Target | null> {
  const pod = await registries.get('', 'pods')!.get(namespace, name);
  if (verb === 'portforward') {
    const nodeName = pod.spec?.nodeName as string | undefined;
    if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
    return { pod, container: '', ...(await kubeletOf(registries, nodeName, name)) };
  }
  const names = ((pod.spec?.containers ?? []) as { name: string }[]).map((c) => c.name);
  const init = ((pod.spec?.initContainers ?? []) as { name: string }[]).map((c) => c.name);
  const eph = ((pod.spec?.ephemeralContainers ?? []) as { name: string }[]).map((c) => c.name);
  let chosen = container ?? '';
  if (!chosen) {
    if (names.length === 1) chosen = names[0];
    else throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]${init.length ? ` or one of the init containers: [${init.join(' ')}]` : ''}`);
  } else if (![...names, ...init, ...eph].includes(chosen)) {
    throw badRequest(`container ${chosen} is not valid for pod ${name}`);
  }
  const nodeName = pod.spec?.nodeName as string | undefined;
  if (!nodeName) {
    if (verb === 'log') return null;
    throw badRequest(`pod ${name} does not have a host assigned`);
  }
  if (verb !== 'log') {
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') throw badRequest(`cannot ${verb === 'exec' ? 'exec into' : 'attach to'} a container in a completed pod; current phase is ${phase}`);
  }
  return { pod, container: chosen, ...(await kubeletOf(registries, nodeName, name)) };
}

/** Where the kubelet of a pod's node listens: one of the Node's own addresses and its port. */
async function kubeletOf(registries: Registries, nodeName: string, pod: string): Promise<{ host: string; port: number }> {
  const node = await registries.get('', 'nodes')!.get(undefined, nodeName).catch((e) => {
    if (e instanceof StatusError && e.code === 404) throw new StatusError(500, 'InternalError', `node "${nodeName}" of pod ${pod} not found`);
    throw e;
  });
  const at = kubeletEndpoint(node);
  if (!at) throw new StatusError(500, 'InternalError', `node "${nodeName}" has no address`);
  return at;
}

/** Where a Node's kubelet listens, or null when it reports no address. */
export function kubeletEndpoint(node: KubeObject): { host: string; port: number } | null {
  const addrs = (node.status?.addresses ?? []) as { type: string; address: string }[];
  const host = (['InternalIP', 'ExternalIP', 'Hostname'].map((type) => addrs.find((a) => a.type === type && a.address)).find(Boolean))?.address;
  if (!host) return null;
  return { host, port: Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port) || 10250 };
}

/** The kubelet's path: /{containerLogs|exec|attach}/{ns}/{pod}/{container}, or /portForward/{ns}/{pod}. */
function kubeletPath(kind: string, t: Target, query: URLSearchParams): string {
  const m = t.pod.metadata;
  const base = `/${kind}/${encodeURIComponent(m.namespace ?? '')}/${encodeURIComponent(m.name ?? '')}`;
  return `${base}${kind === 'portForward' ? '' : `/${encodeURIComponent(t.container)}`}${query.size ? `?${query}` : ''}`;
}

function noKubeletClient(): StatusError {
  return new StatusError(500, 'InternalError', 'the API server has no kubelet client credentials');
}

function reasonFor(code: number): string {
  return ({ 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 503: 'ServiceUnavailable' } as Record<number, string>)[code] ?? 'InternalError';
}

export async function proxyPodLog(h: HandlerContext, registries: Registries, kubelet: KubeletClientConfig | undefined): Promise<void> {
  if (h.info.verb !== 'get') throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  const t = await target(registries, h.info.namespace, h.info.name, h.query.get('container'), 'log');
  if (!t) {
    h.res.writeHead(200, { 'Content-Type': 'text/plain' });
    return void h.res.end();
  }
  if (!kubelet) throw noKubeletClient();
  // Flags reach the kubelet in one spelling, whatever the client wrote (`follow=True`).
  const q = new URLSearchParams();
  for (const k of LOG_FLAGS) if (queryBool(h.query, k)) q.set(k, 'true');
  for (const k of LOG_PARAMS) {
    const v = h.query.get(k);
    if (v !== null) q.set(k, v);
  }
  await new Promise<void>((resolve, reject) => {
    const up = httpsRequest({
      host: t.host, port: t.port, method: 'GET', path: kubeletPath('containerLogs', t, q),
      ca: kubelet.caPem, cert: kubelet.certPem, key: kubelet.keyPem, agent: false, servername: isIP(t.host) ? undefined : t.host,
    }, (kres) => {
      const code = kres.statusCode ?? 500;
      if (code !== 200) {
        let body = '';
        kres.setEncoding('utf8');
        kres.on('data', (d: string) => { if (body.length < 64 * 1024) body += d; });
        kres.on('end', () => reject(new StatusError(code, reasonFor(code), body.trim() || `the kubelet answered ${code}`)));
        kres.on('error', reject);
        return;
      }
      h.res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' });
      h.res.flushHeaders();
      kres.pipe(h.res);
      kres.on('end', resolve);
      kres.on('error', () => { h.res.destroy(); resolve(); });
    });
    // The reader went away (kubectl logs -f interrupted): drop the kubelet connection too.
    h.res.on('close', () => { up.destroy(); resolve(); });
    up.on('error', (e) => {
      if (h.res.headersSent) { h.res.destroy(); resolve(); return; }
      reject(new StatusError(500, 'InternalError', `Get "https://${t.host}:${t.port}/containerLogs/...": ${e.message}`));
    });
    up.end();
  });
}

/** How a stream upgrade is traced: its stages go to `trace` (`kubelet.first-byte`: from the 101 to the stream's first byte); `serverTiming` adds them to the 101; `firstByte` is called after that byte (or a close without one). */
export interface StreamTracing {
  trace: RequestTrace;
  serverTiming: boolean;
  firstByte: (received: boolean) => void;
}

/** Handles an Upgrade request for pods/exec, pods/attach or pods/portforward after authentication and authorisation. */
export async function proxyStreamUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, namespace: string, name: string, subresource: string, query: URLSearchParams, registries: Registries, kubelet: KubeletClientConfig | undefined, tracing?: StreamTracing): Promise<void> {
  const trace = tracing?.trace;
  const t = (await (trace ?? noTrace).time('read', () => target(registries, namespace, name, query.get('container'), subresource as 'exec' | 'attach' | 'portforward')))!;
  if (!kubelet) throw noKubeletClient();
  const q = new URLSearchParams(query);
  q.delete('container');
  for (const k of STREAM_FLAGS) {
    q.delete(k);
    if (queryBool(query, k)) q.set(k, '1');
  }
  const path = kubeletPath(subresource === 'portforward' ? 'portForward' : subresource, t, q);
  const dialed = now();
  const up = tlsConnect({ host: t.host, port: t.port, ca: kubelet.caPem, cert: kubelet.certPem, key: kubelet.keyPem, servername: isIP(t.host) ? undefined : t.host, ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((resolve, reject) => {
    up.once('secureConnect', () => { up.off('error', reject); resolve(); });
    up.once('error', (e) => { trace?.add('kubelet.dial', dialed, true); reject(new StatusError(500, 'InternalError', `error dialing the kubelet at ${t.host}:${t.port}: ${e.message}`)); });
  });
  trace?.add('kubelet.dial', dialed);
  // A WebSocket port-forward client tunnels SPDY: the kubelet is asked for SPDY itself.
  const tunneled = subresource === 'portforward' ? tunneledProtocols(req) : [];
  const tunnel = tunneled.length > 0;
  const lines = [`${tunnel ? 'POST' : req.method} ${path} HTTP/1.1`, `Host: ${t.host}:${t.port}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const k = req.rawHeaders[i];
    const lower = k.toLowerCase();
    // Credentials stay here; the kubelet trusts the API server's own certificate.
    if (['host', 'authorization', 'impersonate-user', 'impersonate-group'].includes(lower) || lower.startsWith('impersonate-extra-')) continue;
    if (tunnel && (['upgrade', 'connection', 'x-stream-protocol-version', 'content-length'].includes(lower) || lower.startsWith('sec-websocket-'))) continue;
    lines.push(`${k}: ${req.rawHeaders[i + 1]}`);
  }
  if (tunnel) lines.push('Connection: Upgrade', 'Upgrade: SPDY/3.1', ...tunneled.map((p) => `X-Stream-Protocol-Version: ${p}`), 'Content-Length: 0');
  const asked = now();
  up.write(lines.join('\r\n') + '\r\n\r\n');
  if (head.length && !tunnel) up.write(head);
  const answer = await readResponseHead(up, t).catch((e: Error) => { trace?.add('kubelet.upgrade', asked, true); up.destroy(); throw e; });
  trace?.add('kubelet.upgrade', asked, answer.code !== 101);
  if (answer.code !== 101) {
    const body = await readBody(up, answer.contentLength, answer.rest);
    up.destroy();
    throw kubeletError(answer.code, body);
  }
  const timing = tracing?.serverTiming ? `Server-Timing: ${formatServerTiming(timingEntries(tracing.trace))}` : undefined;
  const upgraded = now();
  if (tracing) awaitFirstByte(up, answer.rest, (received) => { tracing.trace.add('kubelet.first-byte', upgraded, !received); tracing.firstByte(received); });
  if (tunnel) {
    const chosen = /\r\nx-stream-protocol-version:[ \t]*([^\r]*)/i.exec(answer.raw.subarray(0, answer.raw.length - answer.rest.length).toString('latin1'))?.[1]?.trim() ?? '';
    return acceptTunnel(req, socket, head, chosen, up, answer.rest, timing ? [timing] : []);
  }
  socket.write(timing ? withHeader(answer, timing) : answer.raw);
  splice(up, socket);
}

const noTrace = { time: <T>(_: string, fn: () => Promise<T>) => fn() };

/** The kubelet's 101 with one more header line. */
function withHeader(answer: ResponseHead, line: string): Buffer {
  const headEnd = answer.raw.length - answer.rest.length - 2;
  return Buffer.concat([answer.raw.subarray(0, headEnd), Buffer.from(`${line}\r\n`, 'latin1'), answer.raw.subarray(headEnd)]);
}

/** Calls `done` once the kubelet's side of the stream sent its first byte after the 101 (or closed first). */
function awaitFirstByte(up: Duplex, early: Buffer, done: (received: boolean) => void): void {
  if (early.length) { done(true); return; }
  const onData = () => { up.off('close', onClose); done(true); };
  const onClose = () => { up.off('data', onData); done(false); };
  up.once('data', onData);
  up.once('close', onClose);
}

interface ResponseHead {
  code: number;
  contentLength: number | undefined;
  /** The head and whatever came after it, as received. */
  raw: Buffer;
  /** What came after the head. */
  rest: Buffer;
}

/** The kubelet's status line and headers (the bytes stay available for the splice). */
function readResponseHead(up: Duplex, t: Target): Promise<ResponseHead> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const done = (err?: Error, head?: ResponseHead) => {
      up.off('data', onData).off('end', onEnd).off('error', onError);
      up.pause();
      if (err) reject(err);
      else resolve(head!);
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > 64 * 1024) done(new StatusError(500, 'InternalError', `the kubelet at ${t.host}:${t.port} sent an oversized response head`));
        return;
      }
      const head = buf.subarray(0, end).toString('latin1');
      const code = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
      if (!code) return done(new StatusError(500, 'InternalError', `the kubelet at ${t.host}:${t.port} sent no HTTP response`));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
      done(undefined, { code, contentLength: length === undefined ? undefined : Number(length), raw: buf, rest: buf.subarray(end + 4) });
    };
    const onEnd = () => done(new StatusError(500, 'InternalError', `the kubelet at ${t.host}:${t.port} closed the connection without answering`));
    const onError = (e: Error) => done(new StatusError(500, 'InternalError', `error talking to the kubelet at ${t.host}:${t.port}: ${e.message}`));
    up.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** The rest of a (small) error body: up to its Content-Length, the end, or 64 KB. */
function readBody(up: Duplex, length: number | undefined, first: Buffer): Promise<string> {
  return new Promise((resolve) => {
    let buf = first;
    const limit = Math.min(length ?? 64 * 1024, 64 * 1024);
    const finish = () => {
      up.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
      resolve(buf.subarray(0, limit).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length >= limit) finish();
    };
    if (buf.length >= limit) return finish();
    up.on('data', onData).on('end', finish).on('close', finish).on('error', finish);
    up.resume();
  });
}

/** A kubelet's error answer as a Status: its own Status when it sent one, else its text as the message. */
function kubeletError(code: number, body: string): StatusError {
  try {
    const s = JSON.parse(body);
    if (s?.kind === 'Status' && typeof s.message === 'string') return new StatusError(Number(s.code) || code, s.reason || reasonFor(code), s.message, s.details);
  } catch { /* text */ }
  return new StatusError(code, reasonFor(code), body.trim() || `the kubelet answered ${code}`);
}

/** Answers a failed upgrade with a Status, as the normal pipeline would. */
export function rejectUpgrade(socket: Duplex, status: StatusError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(status.toStatus());
  socket.end(`HTTP/1.1 ${status.code} ${reasonFor(status.code)}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function isIP(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
