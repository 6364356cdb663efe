// `capstan up`: a whole cluster in the foreground. Writes <data-dir>/admin.kubeconfig before
// it says it is ready, and shuts down in order on SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { openStore } from '../storage/index.js';
import { APIServer } from '../apiserver/server.js';
import { ensureClusterPKI, writeAdminKubeconfig } from './pki-files.js';
import { untilSignal } from './signals.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'data-dir': { type: 'string', default: '.capstan' },
      port: { type: 'string', default: '6443' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      store: { type: 'string' },
      'no-node': { type: 'boolean', default: false },
      'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
    },
  });
  const dataDir = resolve(values['data-dir']);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const bind = values['bind-address'];
  const advertise = bind === '0.0.0.0' ? '127.0.0.1' : bind;
  const pki = ensureClusterPKI(dataDir, [advertise], values['service-cluster-ip-range']);
  const storeURL = values.store ?? `sqlite://${resolve(dataDir, 'state.db')}`;
  const store = await openStore(storeURL);
  const server = new APIServer({
    store, bindAddress: bind, port: Number(values.port), advertiseAddress: advertise,
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, caPem: pki.ca.certPem },
    tokenFile: pki.tokenFile, serviceClusterIPRange: values['service-cluster-ip-range'],
  });
  let port: number;
  try {
    ({ port } = await server.start());
  } catch (e) {
    await store.close();
    throw new Error(`capstan up: cannot start the API server: ${(e as Error).message}`);
  }
  const kubeconfig = writeAdminKubeconfig(dataDir, pki, `https://${advertise}:${port}`);
  process.stdout.write([
    `capstan is ready: API server https://${advertise}:${port} (store ${storeURL.split('?')[0]})`,
    `  export KUBECONFIG=${kubeconfig}`,
    '  kubectl get namespaces',
    '',
  ].join('\n'));
  const sig = await untilSignal();
  process.stdout.write(`capstan: ${sig}, shutting down\n`);
  await server.stop();
  await store.close();
  return 0;
}
