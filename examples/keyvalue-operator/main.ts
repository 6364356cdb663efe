// The keyvalue-operator process: in a pod it uses its ServiceAccount, elsewhere a kubeconfig.
//   node dist/examples/keyvalue-operator/main.js [--kubeconfig FILE] [--leader-elect]
import { parseArgs } from 'node:util';
import { Manager, connect } from '../../src/operator/index.js';
import { keyValueStoreReconciler } from './reconciler.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'leader-elect': { type: 'boolean', default: false },
    'leader-elect-namespace': { type: 'string' },
    workers: { type: 'string', default: '2' },
  },
});

const connection = connect({ kubeconfig: values.kubeconfig });
const manager = new Manager({
  name: 'keyvalue-operator',
  connection,
  workers: Number(values.workers),
  ...(values['leader-elect'] ? { leaderElection: { namespace: values['leader-elect-namespace'] } } : {}),
}).add(keyValueStoreReconciler);
manager.start();
manager.log.info('keyvalue-operator started', { server: connection.config.server, namespace: connection.namespace });

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  manager.log.info('stopping', { signal });
  manager.stop().then(() => process.exit(0), (e) => { manager.log.error('stop failed', { error: (e as Error).message }); process.exit(1); });
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
