// `capstan up` on a one-member etcd that is killed for 30 s and restarted on its data and port.
import t from 'tap';
import { startEtcdFor } from '../helpers/etcd.js';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { survivesOutage } from './outage-scenario.js';

t.test('capstan up survives an etcd outage of 30 s', async (t) => {
  const etcd = await startEtcdFor(t);
  const up = await startCapstanUp(t, ['--store', etcd.url, '--hollow-nodes', '2']);
  await survivesOutage(t, up, {
    begin: () => etcd.killMember(0),
    end: () => etcd.restartMember(0),
  });
});
