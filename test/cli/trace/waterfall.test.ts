// The terminal waterfall of `capstan trace`: a line per request, a row per stage with a bar
// placed and sized on the request's server time; stages inside another are indented under it,
// and overlapping ones (parallel validating webhooks) overlap.
import t from 'tap';
import { renderWaterfall } from '../../../src/cli/trace/waterfall.js';

t.test('bars are placed on the server total and nested stages are indented', async (t) => {
  const out = renderWaterfall([{
    method: 'POST', path: '/api/v1/namespaces/default/configmaps', status: 201, start: 0, headersMs: 11, totalMs: 12,
    stages: [
      { name: 'authn', dur: 1, start: 0 },
      { name: 'admission.validating.ValidatingAdmissionWebhook', dur: 5, start: 2 },
      { name: 'admission.webhook.validating.a.example.com', dur: 5, start: 2 },
      { name: 'admission.webhook.validating.b.example.com', dur: 2.5, start: 2 },
      { name: 'total', dur: 10, start: 0 },
    ],
  }]);
  const lines = out.split('\n');
  t.equal(lines[0], 'capstan trace: 1 request; bars are scaled to each request\'s time in the API server');
  t.equal(lines[1], 'POST /api/v1/namespaces/default/configmaps 201 12.0 ms (server 10.0 ms)');
  const bar = (l: string) => /\|([ █]+)\|$/.exec(l)![1];
  t.equal(bar(lines[2]), '████' + ' '.repeat(36), 'authn: the first tenth');
  t.equal(bar(lines[3]), ' '.repeat(8) + '█'.repeat(20) + ' '.repeat(12), 'the plugin: from 20% for half');
  t.match(lines[4], /^ {4}admission\.webhook\.validating\.a\.example\.com/, 'a webhook is indented under its plugin');
  t.equal(bar(lines[5]).indexOf('█'), 8, 'parallel webhooks start together');
  t.equal(bar(lines[5]).trim().length, 10);
});

t.test('a request that never reached the server shows its error', async (t) => {
  const out = renderWaterfall([{ method: 'GET', path: '/api', status: 0, start: 0, headersMs: 0, totalMs: 3, stages: [], error: 'connect ECONNREFUSED 127.0.0.1:1' }]);
  t.match(out, /^GET \/api error: connect ECONNREFUSED 127\.0\.0\.1:1 3\.00 ms$/m);
});
