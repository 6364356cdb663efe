// `capstan join --server https://HOST:PORT --token ID.SECRET --discovery-token-ca-cert-hash
// sha256:HASH [--node-name N]`: kubeadm join's token discovery (join-discovery.ts), then the
// kubelet's client certificate from a CSR made with the bootstrap token (auto-approved and
// signed by the controller-manager), then the node. Nothing here holds the cluster CA's key.
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { writeKubeconfig, realClock } from '../client/index.js';
import { clientCredentials } from '../kubelet/certificate/index.js';
import { logger } from '../log/index.js';
import { discover } from './join-discovery.js';
import { startNode } from './up-node.js';
import { untilSignal } from './signals.js';

export interface JoinedFiles {
  nodeName: string;
  /** The kubelet's kubeconfig: system:node:<name>, its certificate in <dataDir>/pki. */
  kubeconfig: string;
  bootstrapKubeconfig: string;
}

/** Discovery, then the bootstrap kubeconfig and the kubelet's first client certificate. */
export async function joinCluster(o: { server: string; token: string; caCertHashes: string[]; dataDir: string; nodeName?: string }): Promise<JoinedFiles> {
  const found = await discover(o.server, o.token, o.caCertHashes);
  const nodeName = (o.nodeName ?? hostname()).toLowerCase();
  const pki = join(o.dataDir, 'pki');
  mkdirSync(pki, { recursive: true, mode: 0o700 });
  writeFileSync(join(pki, 'ca.crt'), found.caPem);
  const bootstrapKubeconfig = join(o.dataDir, 'bootstrap-kubelet.conf');
  writeKubeconfig(bootstrapKubeconfig, { server: found.server, caPem: found.caPem, token: o.token }, { user: 'tls-bootstrap-token-user' });
  const kubeconfig = join(o.dataDir, 'kubelet.conf');
  const log = logger('join', { node: nodeName });
  const creds = await clientCredentials({ nodeName, kubeconfig, bootstrapKubeconfig, certDir: pki, rotate: false, clock: realClock, log });
  creds.stop();
  return { nodeName, kubeconfig, bootstrapKubeconfig };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: {
    server: { type: 'string' }, token: { type: 'string' },
    'discovery-token-ca-cert-hash': { type: 'string', multiple: true, default: [] },
    'node-name': { type: 'string' }, 'node-ip': { type: 'string' }, 'cgroup-root': { type: 'string' },
    'data-dir': { type: 'string', default: '.capstan-node' },
  } });
  if (!values.server || !values.token) throw new Error('--server and --token are required');
  const dataDir = resolve(values['data-dir']);
  const joined = await joinCluster({ server: values.server, token: values.token, caCertHashes: values['discovery-token-ca-cert-hash'], dataDir, nodeName: values['node-name'] });
  process.stdout.write(`capstan join: ${joined.nodeName} has its client certificate (${joined.kubeconfig}); starting the node\n`);
  const node = await startNode({
    dataDir, kubeconfig: joined.kubeconfig, nodeName: joined.nodeName, nodeIP: values['node-ip'], cgroupRoot: values['cgroup-root'],
    joined: { kubeletKubeconfig: joined.kubeconfig, bootstrapKubeconfig: joined.bootstrapKubeconfig },
  });
  process.stdout.write(`capstan node ${node.nodeName} is running\n`);
  const sig = await untilSignal();
  process.stdout.write(`capstan join: ${sig}, shutting down\n`);
  await node.stop();
  return 0;
}
