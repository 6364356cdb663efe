// Cost of a ValidatingAdmissionPolicy: latency of ConfigMap creates (one at a time) that a
// policy with a few CEL validations (a variable, a regex, a list macro, a quantity) applies
// to, against the same creates its binding's objectSelector leaves out, on one `capstan
// apiserver` process. Rounds alternate so drift hits both alike.
// Usage: node dist/bench/admission-policy.js [--ops N] [--rounds R]
import { Agent } from 'node:https';
import { startAPIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { timeOps } from './lib/latency.js';
import { percentile } from './lib/stats.js';
import { table, writeReport } from './lib/report.js';
import { defineSuite, opsAndRounds, runIfMain, withAndWithout, type Progress } from './lib/suite.js';

let ops = 300;
let rounds = 6;
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
const GROUP = '/apis/admissionregistration.k8s.io/v1';

async function main(progress: Progress) {
try {
  const server = await startAPIServerProcess(t);
  const api = new APIClient(server.port, { ca: server.pki.ca.certPem, cert: server.pki.admin.certPem, key: server.pki.admin.keyPem }, new Agent({ keepAlive: true, maxSockets: 1 }));
  const validations = [
    { expression: 'variables.keys <= 8' },
    { expression: "object.metadata.name.matches('^cm-[0-9]+$')" },
    { expression: "object.data.all(k, !k.startsWith('secret'))" },
    { expression: "!('limit' in object.data) || quantity(object.data.limit).isLessThan(quantity('1Gi'))" },
  ];
  for (const [path, body] of [
    [`${GROUP}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bench' },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, variables: [{ name: 'keys', expression: 'size(object.data)' }], validations },
    }],
    [`${GROUP}/validatingadmissionpolicybindings`, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'bench' },
      spec: { policyName: 'bench', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { bench: 'policed' } } } },
    }],
  ] as const) {
    const res = await api.post(path, body);
    if (res.status !== 201) throw new Error(res.text);
  }
  // Wait for the watch cache to hand the policy to the plugin: a bad name is refused once it is live.
  for (let i = 0; ; i++) {
    const probe = await api.post('/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'probe', labels: { bench: 'policed' } }, data: {} });
    if (probe.status === 422) break;
    if (i > 200) throw new Error('policy never applied');
  }
  const samples: Record<'with' | 'without', number[]> = { with: [], without: [] };
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    progress(`round ${r + 1}/${rounds}`);
    for (const kind of (r % 2 ? ['without', 'with'] : ['with', 'without']) as ('with' | 'without')[]) {
      const labels = kind === 'with' ? { bench: 'policed' } : { bench: 'plain' };
      const lat: number[] = [];
      await timeOps(kind, ops, 1, async () => {
        const t0 = process.hrtime.bigint();
        const c = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: `cm-${n++}`, labels }, data: { v: 'x', limit: '512Mi' } });
        lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (c.status !== 201) throw new Error(c.text);
      });
      samples[kind].push(...lat);
    }
  }
  const row = (kind: 'with' | 'without') => [kind === 'with' ? 'ValidatingAdmissionPolicy (4 validations)' : 'no policy', samples[kind].length,
    percentile(samples[kind], 50).toFixed(2), percentile(samples[kind], 99).toFixed(2)];
  const extra = percentile(samples.with, 50) - percentile(samples.without, 50);
  const report = writeReport('admission-policy', 'ValidatingAdmissionPolicy cost per request', `
ConfigMap creates one at a time over one kept-alive client connection to \`capstan apiserver\`
(SQLite); a ValidatingAdmissionPolicy with a variable and four validations (a size, a regex,
an \`all\` macro over the data keys, a quantity comparison) applies to the creates labelled
\`bench=policed\`; its binding's objectSelector leaves the others out (both are matched and
listed from the watch cache; only the first runs CEL). ${rounds} alternating rounds of ${ops}.

${table(['creates', 'n', 'p50 ms', 'p99 ms'], [row('with'), row('without')])}

The policy adds ${extra.toFixed(2)} ms at p50 (programs are compiled once and cached by expression text).
`);
  return withAndWithout('ConfigMap create, one at a time', { with: 'capstan with ValidatingAdmissionPolicy (4 validations)', without: 'no policy' }, samples, report);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
}

export const suite = defineSuite({
  name: 'admission-policy',
  title: 'ValidatingAdmissionPolicy cost per request',
  params: { full: { ops, rounds }, quick: { ops: 20, rounds: 2 } },
  fromArgv: opsAndRounds,
  run: (p, progress) => {
    [ops, rounds] = [p.ops, p.rounds];
    return main(progress);
  },
});
runIfMain(import.meta.url, suite);
