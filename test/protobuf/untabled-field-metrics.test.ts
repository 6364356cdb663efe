// A protobuf field our tables lack is dropped, not silently: the API server logs it once per
// message and field, and counts every drop in /metrics.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { envelope, msg, str } from '../helpers/protobuf-wire.js';

const metricLine = /^capstan_fallbacks_total\{component="apiserver",reason="protobuf-untabled-field-dropped"\} (\d+)$/m;

t.test('an untabled protobuf field is logged once and counted on /metrics', async (t) => {
  const s = await startAPIServer(t);
  const pb = { contentType: 'application/vnd.kubernetes.protobuf' };
  // ConfigMap {1 metadata {1 name}, 2 data map}, plus field 99, which no ConfigMap has.
  const body = (name: string) => envelope('v1', 'ConfigMap', msg(1, str(1, name)), msg(2, str(1, 'a'), str(2, '1')), str(99, 'from the future'));
  for (const name of ['one', 'two', 'three']) {
    const res = await s.client.post('/api/v1/namespaces/default/configmaps', body(name), pb);
    t.equal(res.status, 201, `${name} created`);
    t.same(res.body.data, { a: '1' }, 'the known fields are kept');
  }
  const metrics = await s.client.get('/metrics', { accept: 'text/plain' });
  t.equal(metrics.text.match(metricLine)?.[1], '3', 'every drop counted');
  const logged = s.logs.map((l) => JSON.parse(l)).filter((l) => l.reason === 'protobuf-untabled-field-dropped');
  t.equal(logged.length, 1, 'logged once');
  t.match(logged[0], { level: 'warn', detail: 'ConfigMap.99', message: 'ConfigMap', field: 99 });
});
