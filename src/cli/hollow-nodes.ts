// `capstan hollow-nodes`: N kubelets without containers in one process (like kubemark), for
// scale tests of the control plane. A loopback control endpoint stops and resumes one
// node's heartbeats, to watch the node lifecycle controller react.
import { parseArgs } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientsetFromKubeconfig } from '../client/index.js';
import { startHollowNodes, type HollowNodes } from '../hollow/index.js';
import { logger } from '../log/index.js';
import { parseDuration } from './duration.js';
import { untilSignal } from './signals.js';

/** POST /nodes/<name>/stop-heartbeat, POST /nodes/<name>/resume-heartbeat, GET /stats, GET /healthz. */
async function startControlServer(hollow: HollowNodes, port: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (code: number, body: unknown) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
    if (req.method === 'GET' && path === '/healthz') return reply(200, 'ok');
    if (req.method === 'GET' && path === '/stats') return reply(200, hollow.stats());
    const m = /^\/nodes\/([^/]+)\/(stop|resume)-heartbeat$/.exec(path);
    if (req.method === 'POST' && m) {
      const name = decodeURIComponent(m[1]);
      try {
        if (m[2] === 'stop') hollow.stopHeartbeat(name);
        else hollow.resumeHeartbeat(name);
        return reply(200, { node: name, heartbeatStopped: hollow.heartbeatStopped(name) });
      } catch (e) {
        return reply(404, { error: (e as Error).message });
      }
    }
    reply(404, { error: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      kubeconfig: { type: 'string' },
      count: { type: 'string', default: '1' },
      'name-prefix': { type: 'string', default: 'hollow-' },
      cpu: { type: 'string', default: '4' },
      memory: { type: 'string', default: '16Gi' },
      pods: { type: 'string', default: '110' },
      'heartbeat-interval': { type: 'string', default: '10s' },
      'termination-delay': { type: 'string', default: '1s' },
      workers: { type: 'string', default: '16' },
      concurrency: { type: 'string', default: '64' },
      'stop-heartbeat': { type: 'string', multiple: true, default: [] },
      'control-port': { type: 'string' },
    },
  });
  if (!values.kubeconfig) throw new Error('--kubeconfig is required');
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1) throw new Error(`--count must be a positive integer, not "${values.count}"`);
  const log = logger('hollow-nodes');
  const clients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-hollow-kubelet');
  const hollow = await startHollowNodes({
    clients, count, log,
    namePrefix: values['name-prefix'], cpu: values.cpu, memory: values.memory, pods: Number(values.pods),
    heartbeatIntervalMs: parseDuration(values['heartbeat-interval']),
    terminationDelayMs: parseDuration(values['termination-delay']),
    workers: Number(values.workers), concurrency: Number(values.concurrency),
    stopHeartbeat: values['stop-heartbeat'].flatMap((s) => s.split(',')).filter(Boolean),
  });
  const control = values['control-port'] !== undefined ? await startControlServer(hollow, Number(values['control-port'])) : undefined;
  process.stdout.write(`capstan hollow-nodes running: ${count} nodes (${hollow.names[0]} … ${hollow.names[hollow.names.length - 1]})${control ? `, control on 127.0.0.1:${control.port}` : ''}\n`);
  await untilSignal();
  control?.server.close();
  await hollow.stop();
  clients.close();
  return 0;
}
