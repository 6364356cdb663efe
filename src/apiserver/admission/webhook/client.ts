// Calls one webhook: POST of the AdmissionReview over HTTPS, verified against the webhook's
// caBundle (the system's roots without one), to its `url` or to an endpoint of its `service`
// (resolved by the API server, as --enable-aggregator-routing does, with the service's DNS
// name as the TLS server name), bounded by timeoutSeconds. Connections are kept alive, one
// pool per CA bundle.
import { Agent, request } from 'node:https';
import type { Fields, KubeObject } from '../../../api/object.js';
import { StatusError } from '../../errors.js';

export interface Target {
  /** What errors show: `https://svc.ns.svc:443/path`. */
  display: string;
  host: string;
  port: number;
  path: string;
  servername: string;
}

/** Reads a Service and its Endpoints (namespace, name). */
export type ObjectReader = (resource: 'services' | 'endpoints', namespace: string, name: string) => Promise<KubeObject | undefined>;

export async function resolveTarget(cc: Fields, read: ObjectReader): Promise<Target> {
  if (cc.url) {
    const u = new URL(cc.url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return { display: cc.url, host, port: Number(u.port || 443), path: `${u.pathname}${u.search}`, servername: host };
  }
  const s = cc.service as Fields;
  const port = s.port ?? 443;
  const path = s.path ?? '';
  const dns = `${s.name}.${s.namespace}.svc`;
  const display = `https://${dns}:${port}${path}`;
  const svc = await read('services', s.namespace, s.name);
  if (!svc) throw new Error(`service "${s.name}" not found`);
  const svcPort = ((svc.spec?.ports ?? []) as Fields[]).find((p) => p.port === port);
  if (!svcPort) throw new Error(`unable to find service port ${port} of service "${s.namespace}/${s.name}"`);
  const ep = await read('endpoints', s.namespace, s.name);
  for (const subset of (ep?.subsets ?? []) as Fields[]) {
    const ports = (subset.ports ?? []) as Fields[];
    const epPort = ports.length === 1 && !svcPort.name ? ports[0] : ports.find((p) => p.name === svcPort.name);
    const address = ((subset.addresses ?? []) as Fields[])[0];
    if (epPort && address) return { display, host: address.ip, port: epPort.port, path: path || '/', servername: dns };
  }
  throw new Error(`no endpoints available for service "${s.name}"`);
}

const agents = new Map<string, Agent>();

function agentFor(caBundle: string | undefined): Agent {
  const key = caBundle ?? '';
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ keepAlive: true, ca: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined });
    agents.set(key, agent);
  }
  return agent;
}

/** The webhook's JSON reply; throws an Error whose message says why the call failed. */
export function post(target: Target, caBundle: string | undefined, body: unknown, timeoutSeconds: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const sep = target.path.includes('?') ? '&' : '?';
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.host, port: target.port, method: 'POST', path: `${target.path || '/'}${sep}timeout=${timeoutSeconds}s`,
      servername: target.servername, agent: agentFor(caBundle),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': payload.length, Host: `${target.servername}:${target.port}` },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(new Error(`the server responded with the status code ${res.statusCode} but did not return more information`));
        try { resolve(JSON.parse(text)); } catch { reject(new Error('received invalid webhook response')); }
      });
    });
    const timer = setTimeout(() => req.destroy(new Error('context deadline exceeded')), timeoutSeconds * 1000);
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Go's wording, which is what upstream's message carries.
      reject(e.code === 'ECONNREFUSED' ? new Error(`dial tcp ${target.host}:${target.port}: connect: connection refused`) : e);
    });
    req.end(payload);
  });
}

/** Upstream's message for a webhook that could not be called (a 500 under failurePolicy Fail). */
export function callFailed(name: string, target: string, timeoutSeconds: number, e: unknown): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: failed calling webhook "${name}": failed to call webhook: Post "${target}?timeout=${timeoutSeconds}s": ${(e as Error).message}`);
}

/** Upstream's webhookerrors.ToStatusErr: a refusal keeps the webhook's code (at least 400) and reason. */
export function denied(name: string, status: { code?: number; message?: string; reason?: string } = {}): StatusError {
  const by = `admission webhook "${name}" denied the request`;
  const message = status.message ? `${by}: ${status.message}` : status.reason ? `${by}: ${status.reason}` : `${by} without explanation`;
  return new StatusError(status.code && status.code >= 400 ? status.code : 400, status.reason ?? '', message);
}
