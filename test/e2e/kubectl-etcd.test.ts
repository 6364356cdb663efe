import t from 'tap';
import { startAPIServerProcess } from '../helpers/apiserver-process.js';
import { startEtcdFor } from '../helpers/etcd.js';
import { kubectlSuite } from './kubectl-suite.js';

t.test('kubectl against capstan on a 3-member etcd cluster', (t) =>
  kubectlSuite(t, async (t) => {
    const etcd = await startEtcdFor(t, { members: 3 });
    return startAPIServerProcess(t, { store: etcd.url });
  }));
