// One probe execution: exec through CRI ExecSync, httpGet and tcpSocket from the kubelet's
// network namespace to the pod's IP (the node routes to its pods). Messages follow
// Kubernetes' wording, since they show up in Unhealthy events.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { isDeadlineExceeded, type CRIRuntime } from '../../cri/index.js';
import type { Container, Probe } from 'kubernetes-types/core/v1.js';

export interface ProbeTarget {
  containerId: string;
  podIP: string;
  container: Container;
}

export interface ProbeOutcome {
  ok: boolean;
  output: string;
  /** exec: the command's exit code and its stderr alone (lifecycle hook messages name them). */
  exitCode?: number;
  stderr?: string;
  /** httpGet: the response's status, when there was one. */
  httpStatus?: number;
}

/** Runs one probe or handler action (exec / httpGet / tcpSocket) with a timeout in seconds. */
export type ProbeRunner = (action: Probe, target: ProbeTarget, timeoutSeconds: number) => Promise<ProbeOutcome>;

/** A named port ("http") resolved through the container's ports. */
export function resolvePort(port: number | string | undefined, container: Container): number {
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  const p = (container.ports ?? []).find((x) => x.name === port);
  if (!p) throw new Error(`unable to resolve port ${JSON.stringify(port)} by name`);
  return p.containerPort;
}

function httpGet(action: Probe, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const h = action.httpGet!;
  const host: string = h.host || target.podIP;
  const port = resolvePort(h.port, target.container);
  const scheme = (h.scheme ?? 'HTTP').toLowerCase();
  const path: string = h.path ? (h.path.startsWith('/') ? h.path : `/${h.path}`) : '/';
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  const headers: Record<string, string> = { 'User-Agent': 'kube-probe/1.32', Accept: '*/*' };
  for (const x of h.httpHeaders ?? []) headers[x.name] = x.value;
  return new Promise((resolve) => {
    const req = (scheme === 'https' ? httpsRequest : httpRequest)(url, { method: 'GET', headers, rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { if (body.length < 10_240) body += d; });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 400) resolve({ ok: true, output: body });
        else resolve({ ok: false, output: `HTTP probe failed with statuscode: ${code}`, httpStatus: code });
      });
      res.on('error', (e) => resolve({ ok: false, output: `Get "${url}": ${e.message}` }));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ ok: false, output: `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ ok: false, output: `Get "${url}": dial tcp ${host}:${port}: connect: ${errText(e)}` }));
    req.end();
  });
}

function errText(e: NodeJS.ErrnoException): string {
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'EHOSTUNREACH') return 'no route to host';
  if (e.code === 'ENETUNREACH') return 'network is unreachable';
  return e.message;
}

function tcpSocket(action: Probe, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const host: string = action.tcpSocket!.host || target.podIP;
  const port = resolvePort(action.tcpSocket!.port, target.container);
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: timeoutMs });
    s.once('connect', () => { s.destroy(); resolve({ ok: true, output: '' }); });
    s.once('timeout', () => { s.destroy(); resolve({ ok: false, output: `dial tcp ${host}:${port}: i/o timeout` }); });
    s.once('error', (e: NodeJS.ErrnoException) => resolve({ ok: false, output: `dial tcp ${host}:${port}: connect: ${errText(e)}` }));
  });
}

/** The real runner: exec through `runtime`, network probes from this process. */
export function defaultProbeRunner(runtime: CRIRuntime): ProbeRunner {
  return async (action, target, timeoutSeconds) => {
    const timeout = Math.max(1, timeoutSeconds);
    try {
      if (action.exec) {
        const cmd: string[] = action.exec.command ?? [];
        try {
          const r = await runtime.execSync(target.containerId, cmd, timeout);
          const output = Buffer.concat([r.stdout, r.stderr]).toString('utf8');
          return {
            ok: r.exit_code === 0, output: r.exit_code === 0 ? output : output || `command ${JSON.stringify(cmd.join(' '))} exited with ${r.exit_code}`,
            exitCode: r.exit_code, stderr: r.stderr.toString('utf8'),
          };
        } catch (e) {
          if (isDeadlineExceeded(e)) return { ok: false, output: `command timed out: "${cmd.join(' ')}" timed out after ${timeout}s` };
          throw e;
        }
      }
      if (action.httpGet) return await httpGet(action, target, timeout * 1000);
      if (action.tcpSocket) return await tcpSocket(action, target, timeout * 1000);
      return { ok: false, output: 'missing probe handler' };
    } catch (e) {
      return { ok: false, output: (e as Error).message };
    }
  };
}
