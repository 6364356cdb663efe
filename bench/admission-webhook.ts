// Cost of an admission webhook on loopback: latency of ConfigMap creates (one at a time)
// that a validating webhook (HTTPS, allow-all) is sent, against the same creates that its
// objectSelector leaves out, on one `capstan apiserver` process. Rounds alternate so drift
// hits both alike; the webhook server counts TLS connections, which shows keep-alive.
// Usage: node dist/bench/admission-webhook.js [--ops N] [--rounds R]
import { Agent } from 'node:https';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { startWebhookServer } from '../test/helpers/webhook-server.js';
import { timeOps } from './lib/latency.js';
import { percentile } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, opsAndRounds, runIfMain, withAndWithout, type Progress } from './lib/suite.js';

let ops = 300;
let rounds = 6;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };

async function main(progress: Progress) {
try {
  const server = await startAPIServerProcess(t);
  const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 1 }));
  const hook = await startWebhookServer(t, () => ({ allowed: true }));
  const res = await api.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bench' },
    webhooks: [{
      name: 'bench.example.com', clientConfig: { url: `https://127.0.0.1:${hook.port}/`, caBundle: hook.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      objectSelector: { matchLabels: { bench: 'hooked' } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
    }],
  });
  if (res.status !== 201) throw new Error(res.text);
  // Wait for the watch cache to hand the configuration to the plugin.
  for (let i = 0; hook.reviews.length === 0; i++) {
    await api.post('/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'probe', labels: { bench: 'hooked' } } });
    if (i > 200) throw new Error('webhook never called');
  }
  const samples: Record<'with' | 'without', number[]> = { with: [], without: [] };
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    progress(`round ${r + 1}/${rounds}`);
    for (const kind of (r % 2 ? ['without', 'with'] : ['with', 'without']) as ('with' | 'without')[]) {
      const labels = kind === 'with' ? { bench: 'hooked' } : { bench: 'plain' };
      const lat: number[] = [];
      await timeOps(kind, ops, 1, async () => {
        const t0 = process.hrtime.bigint();
        const c = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: `cm-${n++}`, labels }, data: { v: 'x' } });
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (c.status !== 201) throw new Error(c.text);
      });
      samples[kind].push(...lat);
    }
  }
  const row = (kind: 'with' | 'without') => [kind === 'with' ? 'validating webhook (allow)' : 'no webhook', samples[kind].length,
    percentile(samples[kind], 50).toFixed(2), percentile(samples[kind], 99).toFixed(2)];
  const extra = percentile(samples.with, 50) - percentile(samples.without, 50);
  const report = writeReport('admission-webhook', 'Admission webhook round trip on loopback', `
ConfigMap creates one at a time over one kept-alive client connection to \`capstan apiserver\`
(SQLite); a validating webhook (HTTPS on 127.0.0.1, allow-all, caBundle) is sent the creates
labelled \`bench=hooked\`, its objectSelector leaves the others out. ${rounds} alternating rounds of ${ops}.

${table(['creates', 'n', 'p50 ms', 'p99 ms'], [row('with'), row('without')])}

The webhook adds ${extra.toFixed(2)} ms at p50. The webhook server saw ${hook.connections} TLS connection(s) for
${hook.reviews.length} reviews: the API server keeps its connection to the webhook alive (a new one
after each round without the webhook, longer than the test server's 5 s idle timeout).
`);
  return withAndWithout('ConfigMap create, one at a time', { with: 'capstan with validating webhook (allow)', without: 'no webhook' }, samples, report);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'admission-webhook',
  title: 'Admission webhook round trip on loopback',
  params: { full: { ops, rounds }, quick: { ops: 20, rounds: 2 } },
  fromArgv: opsAndRounds,
  run: (p, progress) => {
    [ops, rounds] = [p.ops, p.rounds];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
