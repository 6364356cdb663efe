// The kubelet's HTTPS server (port 10250): container logs and exec for the API server's
// pods/log and pods/exec, /healthz and /pods. Clients must present a certificate of the
// cluster CA (the API server comes as kube-apiserver-kubelet-client); containers are found
// through CRI labels, so the server keeps no state and can start before the pod workers.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { isAbsolute, join } from 'node:path';
import { WebSocketServer } from 'ws';
import type { CRIRuntime } from '../../../cri/index.js';
import { logger, type Logger } from '../../log/index.js';
import { pickProtocol } from './channels.js';
import { ContainerLookupError, findContainer, LABELS } from './containers.js';
import { bridgeExec } from './exec.js';
import { LogQueryError, parseLogQuery, readLogFile } from './logs.js';
import { connectStreamServer, openRemoteCommand, tcpDialer, type Dialer } from './remote-command.js';
import { bridgePortForward, parsePorts, PORT_FORWARD_WS_PROTOCOL } from './portforward-ws.js';
import { offeredStreamProtocols, proxyToStreamServer } from './stream-proxy.js';
import { fallbacks } from '../../log/fallback.js';
import { forbiddenMessage, requestAttributes, type KubeletAuth } from './auth.js';
import type { Summary } from '../../api/stats/summary.js';
import { renderResourceMetrics } from '../../api/stats/resource-metrics.js';

export { LABELS } from './containers.js';
export { delegatedAuth, requestAttributes, type KubeletAuth, type KubeletUser } from './auth.js';
export { netnsDialer } from './dial.js';
export type { Dialer } from './remote-command.js';

export interface KubeletServerOptions {
  cri: Pick<CRIRuntime, 'listContainers' | 'containerStatus' | 'exec' | 'attach' | 'portForward' | 'listPodSandbox'>;
  /** Default 0.0.0.0. */
  address?: string;
  /** Default 10250; 0 picks a free port. */
  port?: number;
  tls: { certPem: string; keyPem: string };
  /** PEM of the CA whose client certificates are accepted (the cluster CA). */
  clientCA: string;
  /** Where relative CRI log paths are resolved (CRI reports absolute ones). */
  logRoot?: string;
  nodeName: string;
  /** How to reach the CRI stream server (default: plain TCP from this process). */
  streamDialer?: Dialer;
  /** The pods this kubelet runs, for /pods; by default derived from CRI sandboxes. */
  pods?: () => Promise<unknown[]> | unknown[];
  log?: Logger;
  /** Follow-mode polling (tests shorten it). */
  logPollMs?: number;
  /**
   * Authentication (client certificate or bearer token) and authorization (nodes/<sub>) of
   * every request, as upstream's webhook mode; without it only a cluster CA certificate is
   * checked, at the TLS handshake.
   */
  auth?: KubeletAuth;
  /** The node's and its pods' usage, for /stats/summary and /metrics/resource (404 without). */
  stats?: () => Promise<Summary>;
}

export interface KubeletServer {
  port: number;
  /** Serves new connections with a renewed certificate (a rotated kubelet-serving one). */
  setCertificate(tls: { certPem: string; keyPem: string }): void;
  stop(): Promise<void>;
}

export async function startKubeletServer(opts: KubeletServerOptions): Promise<KubeletServer> {
  const log = opts.log ?? logger('kubelet-server', { node: opts.nodeName });
  const fallback = fallbacks('kubelet', log);
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => pickProtocol(offered) });
  const server: Server = createServer({
    cert: opts.tls.certPem, key: opts.tls.keyPem, ca: opts.clientCA,
    // With auth, bearer-token clients connect without a certificate; auth checks each request.
    requestCert: true, rejectUnauthorized: !opts.auth,
    requestTimeout: 0,
  }, (req, res) => void handle(req, res).catch((e: Error) => {
    log.error('request failed', { path: req.url, error: e.message });
    if (!res.headersSent) sendText(res, 500, e.message);
    else res.destroy();
  }));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void handleUpgrade(req, socket, head).catch((e: Error) => {
    log.error('upgrade failed', { path: req.url, error: e.message });
    rejectUpgrade(socket, 500, e.message);
  }));
  server.on('tlsClientError', () => undefined);
  // Upgraded connections outlive the HTTP server's bookkeeping: stop() ends them itself.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  });

  /** null when the request may go on, else the status and text to refuse it with. */
  async function gate(req: IncomingMessage, path: string): Promise<{ code: number; message: string } | null> {
    if (!opts.auth) return null;
    const user = await opts.auth.authenticate(req);
    if (!user) return { code: 401, message: 'Unauthorized' };
    const { verb, subresources } = requestAttributes(req.method ?? 'GET', path);
    for (const sub of subresources) if (await opts.auth.authorize(user, verb, sub)) return null;
    return { code: 403, message: forbiddenMessage(user, verb, subresources[subresources.length - 1]) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const refused = await gate(req, url.pathname);
    if (refused) return sendText(res, refused.code, refused.message);
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method !== 'GET' && req.method !== 'HEAD' && parts[0] !== 'exec' && parts[0] !== 'attach' && parts[0] !== 'portForward') return sendText(res, 405, 'method not allowed');
    switch (parts[0]) {
      case 'healthz': return sendText(res, 200, 'ok');
      case 'pods': return sendJSON(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: await listPods() });
      case 'containerLogs': return containerLogs(req, res, url, parts.slice(1));
      case 'stats': if (opts.stats && parts[1] === 'summary' && parts.length === 2) return sendJSON(res, 200, await opts.stats()); break;
      case 'metrics': if (opts.stats && parts[1] === 'resource' && parts.length === 2) return resourceMetrics(res); break;
      case 'exec': case 'attach': return sendText(res, 400, `${parts[0]} needs an upgrade (Upgrade: websocket with Sec-WebSocket-Protocol v5.channel.k8s.io, or SPDY/3.1)`);
      case 'portForward': return sendText(res, 400, 'portForward needs an upgrade (Upgrade: SPDY/3.1, X-Stream-Protocol-Version: portforward.k8s.io)');
    }
    sendText(res, 404, '404 page not found');
  }

  async function resourceMetrics(res: ServerResponse): Promise<void> {
    const summary = await opts.stats!().catch((e: Error) => { fallback('resource-metrics-summary-failed', { error: e }); return null; });
    const body = renderResourceMetrics(summary ?? { node: { nodeName: opts.nodeName, startTime: '' }, pods: [] }, !summary);
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  async function containerLogs(req: IncomingMessage, res: ServerResponse, url: URL, p: string[]): Promise<void> {
    if (p.length !== 3) return sendText(res, 400, 'expected /containerLogs/{namespace}/{pod}/{container}');
    const [namespace, pod, container] = p;
    let q;
    try {
      q = parseLogQuery(url.searchParams);
    } catch (e) {
      if (e instanceof LogQueryError) return sendText(res, 400, e.message);
      throw e;
    }
    let c;
    try {
      c = await findContainer(opts.cri, namespace, pod, container, { previous: q.previous });
    } catch (e) {
      if (e instanceof ContainerLookupError) return sendText(res, e.code, e.message);
      throw e;
    }
    const st = (await opts.cri.containerStatus(c.id)).status;
    const path = st?.log_path ? (isAbsolute(st.log_path) || !opts.logRoot ? st.log_path : join(opts.logRoot, st.log_path)) : '';
    if (!path) return sendText(res, 404, `container "${container}" in pod "${pod}" has no log file`);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    if (req.method === 'HEAD') return void res.end();
    // Headers go out at once: a follow on a quiet container must still answer.
    res.flushHeaders();
    const write = (chunk: string) => new Promise<void>((resolve) => {
      if (res.destroyed || res.write(chunk)) return resolve();
      res.once('drain', resolve);
      res.once('close', resolve);
    });
    const running = async () => {
      const s = await opts.cri.containerStatus(c.id).catch((e: unknown) => { fallback('log-follow-status-failed-stopping', { error: e }); return null; });
      return s?.status?.state === 'CONTAINER_RUNNING' || s?.status?.state === 'CONTAINER_CREATED';
    };
    await readLogFile(path, q, write, { signal: abort.signal, running, pollMs: opts.logPollMs });
    res.end();
  }

  async function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const refused = await gate(req, url.pathname);
    if (refused) return rejectUpgrade(socket, refused.code, refused.message);
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const verb = parts[0];
    const upgradeTo = (req.headers.upgrade ?? '').toLowerCase();
    const spdy = upgradeTo === 'spdy/3.1';
    if (verb === 'portForward' && (parts.length === 3 || parts.length === 4)) {
      if (!spdy && upgradeTo !== 'websocket') return rejectUpgrade(socket, 400, `unsupported upgrade protocol ${JSON.stringify(req.headers.upgrade)} for port forwarding: SPDY/3.1 (portforward.k8s.io) or websocket (${PORT_FORWARD_WS_PROTOCOL})`);
      return portForward(req, socket, head, url.searchParams, spdy, parts[1], parts[2], parts[3]);
    }
    if ((verb !== 'exec' && verb !== 'attach') || parts.length !== 4) return rejectUpgrade(socket, 404, '404 page not found');
    if (upgradeTo !== 'websocket' && !spdy) return rejectUpgrade(socket, 400, `unsupported upgrade protocol ${JSON.stringify(req.headers.upgrade)}: websocket (v5.channel.k8s.io, v4.channel.k8s.io) or SPDY/3.1`);
    let protocol: string | false = 'spdy';
    if (!spdy) {
      const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      protocol = pickProtocol(offered);
      if (!protocol) return rejectUpgrade(socket, 400, `unsupported subprotocols ${JSON.stringify(offered)}; supported: v5.channel.k8s.io, v4.channel.k8s.io`);
    }
    const [, namespace, pod, container] = parts;
    const q = url.searchParams;
    const flag = (k: string) => ['true', '1'].includes(q.get(k) ?? '');
    const command = q.getAll('command');
    const streams = { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
    if (verb === 'exec' && !command.length) return rejectUpgrade(socket, 400, 'you must specify at least one command for the container');
    if (!streams.stdin && !streams.stdout && !streams.stderr) return rejectUpgrade(socket, 400, 'you must specify at least one of stdin, stdout, stderr');
    if (streams.tty && streams.stderr) streams.stderr = false; // a terminal merges stderr into stdout
    let c;
    try {
      c = await findContainer(opts.cri, namespace, pod, container);
    } catch (e) {
      if (e instanceof ContainerLookupError) return rejectUpgrade(socket, e.code, e.message);
      throw e;
    }
    if (c.state !== 'CONTAINER_RUNNING') return rejectUpgrade(socket, 400, `container ${container} is not running`);
    const id = c.id;
    const streamURL = () => verb === 'exec' ? opts.cri.exec({ container_id: id, cmd: command, ...streams }) : opts.cri.attach({ container_id: id, ...streams });
    const fields = { namespace, pod, container, ...(verb === 'exec' ? { command: command.join(' ') } : {}), user: peer(req) };
    if (spdy) {
      const url = await streamURL();
      const chosen = await proxyToStreamServer(socket, head, offeredStreamProtocols(req.headersDistinct['x-stream-protocol-version']), url, opts.streamDialer ?? tcpDialer)
        .catch((e: Error) => { rejectUpgrade(socket, 400, e.message); return null; });
      if (chosen !== null) log.info(verb, { ...fields, protocol: `SPDY/3.1 ${chosen}` });
      return;
    }
    const wsProtocol = protocol as string;
    wss.handleUpgrade(req, socket, head, (ws) => {
      log.info(verb, { ...fields, protocol: wsProtocol });
      void bridgeExec(ws, wsProtocol, streams, async () => openRemoteCommand(await streamURL(), streams, opts.streamDialer ?? tcpDialer),
        (m, f) => log.error(m, { namespace, pod, container, ...f }));
    });
  }

  /** Port forwarding into a pod's sandbox: CRI PortForward, then the client's SPDY session joined to
   *  the runtime's, or a WebSocket client's channels bridged to stream pairs on a session of our own. */
  async function portForward(req: IncomingMessage, socket: Duplex, head: Buffer, q: URLSearchParams, spdy: boolean, namespace: string, pod: string, uid?: string): Promise<void> {
    let ports: number[] = [];
    if (!spdy) {
      const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
      if (!offered.includes(PORT_FORWARD_WS_PROTOCOL)) return rejectUpgrade(socket, 400, `unsupported subprotocols ${JSON.stringify(offered)}; supported: ${PORT_FORWARD_WS_PROTOCOL}`);
      try {
        ports = parsePorts(q.getAll('ports'));
      } catch (e) {
        return rejectUpgrade(socket, 400, (e as Error).message);
      }
    }
    const label_selector: Record<string, string> = { [LABELS.podNamespace]: namespace, [LABELS.podName]: pod };
    if (uid) label_selector[LABELS.podUID] = uid;
    const sandboxes = await opts.cri.listPodSandbox({ label_selector, state: { state: 'SANDBOX_READY' } });
    const sandbox = sandboxes.sort((a, b) => (BigInt(b.created_at || '0') > BigInt(a.created_at || '0') ? 1 : -1))[0];
    if (!sandbox) return rejectUpgrade(socket, 404, `pod "${pod}" in namespace "${namespace}" has no running sandbox on this node`);
    const url = await opts.cri.portForward(sandbox.id);
    const dial = opts.streamDialer ?? tcpDialer;
    if (spdy) {
      const chosen = await proxyToStreamServer(socket, head, offeredStreamProtocols(req.headersDistinct['x-stream-protocol-version']), url, dial)
        .catch((e: Error) => { rejectUpgrade(socket, 400, e.message); return null; });
      if (chosen !== null) log.info('portForward', { namespace, pod, protocol: `SPDY/3.1 ${chosen}`, user: peer(req) });
      return;
    }
    const session = await connectStreamServer(url, ['portforward.k8s.io'], dial).catch((e: Error) => { rejectUpgrade(socket, 400, e.message); return null; });
    if (!session) return;
    wss.handleUpgrade(req, socket, head, (ws) => {
      log.info('portForward', { namespace, pod, ports: ports.join(','), protocol: ws.protocol, user: peer(req) });
      bridgePortForward(ws, ports, session);
    });
  }

  async function listPods(): Promise<unknown[]> {
    if (opts.pods) return opts.pods();
    const sandboxes = await opts.cri.listPodSandbox({ state: { state: 'SANDBOX_READY' } });
    return sandboxes.map((s) => ({
      kind: 'Pod', apiVersion: 'v1',
      metadata: { name: s.labels[LABELS.podName] ?? s.metadata?.name, namespace: s.labels[LABELS.podNamespace] ?? s.metadata?.namespace, uid: s.labels[LABELS.podUID] ?? s.metadata?.uid },
      spec: { nodeName: opts.nodeName },
    }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 10250, opts.address ?? '0.0.0.0', () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  log.info('serving', { address: opts.address ?? '0.0.0.0', port });
  return {
    port,
    setCertificate(tls) {
      server.setSecureContext({ cert: tls.certPem, key: tls.keyPem, ca: opts.clientCA });
    },
    async stop() {
      for (const ws of wss.clients) ws.terminate();
      for (const socket of upgraded) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function peer(req: IncomingMessage): string {
  const cert = (req.socket as TLSSocket).getPeerCertificate?.();
  return cert?.subject?.CN ? String(cert.subject.CN) : '';
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text + '\n') });
  res.end(text + '\n');
}

function sendJSON(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' };

function rejectUpgrade(socket: Duplex, code: number, message: string): void {
  if (socket.destroyed) return;
  const body = message + '\n';
  socket.end(`HTTP/1.1 ${code} ${REASONS[code] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
