// `capstan hollow-nodes`: N kubelets without containers in one process (like kubemark), for
// scale tests of the control plane. Each node's kubelet API (logs; exec refused) listens on
// its loopback InternalIP, with serving certificates from the cluster CA in --ca-dir. A
// loopback control endpoint stops and resumes one node's heartbeats, to watch the node
// lifecycle controller react.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientsetFromKubeconfig } from '../client/index.js';
import { hollowClientSockets, startHollowNodes, type HollowNodes } from '../hollow/index.js';
import { logger } from '../log/index.js';
import { parseDuration } from '../util/index.js';
import { untilSignal } from './signals.js';
import { HOLLOW_NODES_READY } from './hollow-nodes-process.js';

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
      'ca-dir': { type: 'string' },
      'kubelet-port': { type: 'string', default: '0' },
    },
  });
  if (!values.kubeconfig) throw new Error('--kubeconfig is required');
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1) throw new Error(`--count must be a positive integer, not "${values.count}"`);
  const kubeletPort = Number(values['kubelet-port']);
  if (!Number.isInteger(kubeletPort) || kubeletPort < 0 || kubeletPort > 65535) throw new Error(`--kubelet-port must be a port number (0: pick a free one), not "${values['kubelet-port']}"`);
  // As for `capstan node`: the cluster CA signs the kubelets' serving certificates.
  const caDir = values['ca-dir'];
  const ca = caDir ? { certPem: readFileSync(join(caDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(caDir, 'ca.key'), 'utf8') } : undefined;
  const log = logger('hollow-nodes');
  const workers = Number(values.workers), concurrency = Number(values.concurrency);
  const clients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-hollow-kubelet', { maxSockets: hollowClientSockets({ concurrency, workers }) });
  const hollow = await startHollowNodes({
    clients, count, log,
    namePrefix: values['name-prefix'], cpu: values.cpu, memory: values.memory, pods: Number(values.pods),
    heartbeatIntervalMs: parseDuration(values['heartbeat-interval']),
    terminationDelayMs: parseDuration(values['termination-delay']),
    workers, concurrency,
    stopHeartbeat: values['stop-heartbeat'].flatMap((s) => s.split(',')).filter(Boolean),
    ca, kubeletPort,
  });
  const control = values['control-port'] !== undefined ? await startControlServer(hollow, Number(values['control-port'])) : undefined;
  process.stdout.write(`capstan hollow-nodes running: ${count} nodes (${hollow.names[0]} … ${hollow.names[hollow.names.length - 1]}), kubelet API on port ${hollow.kubeletPort}${ca ? '' : ' (refusing: no --ca-dir)'}${control ? `, control on 127.0.0.1:${control.port}` : ''}\n`);
  // Forked by `capstan up` (with an IPC channel): say the nodes are registered, and stop
  // when the channel closes, since up is gone.
  const forked = !!process.send;
  if (forked) process.send!(HOLLOW_NODES_READY);
  await Promise.race([
    untilSignal(),
    ...(forked ? [new Promise<void>((resolve) => process.once('disconnect', () => resolve()))] : []),
  ]);
  control?.server.close();
  await hollow.stop();
  clients.close();
  if (process.connected) process.disconnect();
  return 0;
}
