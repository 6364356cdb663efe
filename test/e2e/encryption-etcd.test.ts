// Encryption at rest on etcd: the raw value read with an etcd client of its own.
import t from 'tap';
import { Etcd3 } from 'etcd3';
import { startEtcdFor } from '../helpers/etcd.js';
import { encryptionScenario } from './encryption-scenario.js';

t.test('Secrets encrypted at rest in etcd', (t) =>
  encryptionScenario(t, async (t) => {
    const etcd = await startEtcdFor(t);
    const client = new Etcd3({ hosts: etcd.endpoints });
    t.teardown(() => client.close());
    return { url: etcd.url, raw: { read: async (key) => (await client.get(key).buffer()) ?? undefined } };
  }));
