// Cost of RBAC authorization: request throughput of a get/list mix by a user who is not in
// system:masters (so every request is decided by the RBAC rules), against a server with
// --authorization-mode AlwaysAllow holding the same objects, with 10, 1,000 and 10,000
// RoleBindings/ClusterRoleBindings for other subjects. Both servers run as `capstan apiserver`
// processes at the same time; rounds alternate between them so drift hits both alike.
// Usage: node dist/bench/rbac.js [--ops N] [--rounds R] [--bindings 10,1000,10000]
import { parseArgs } from 'node:util';
import { Agent } from 'node:https';
import { startAPIServerProcess, type APIServerProcess } from '../test/helpers/apiserver-process.js';
import { APIClient } from '../test/helpers/api.js';
import { issueCert } from '../src/pki/index.js';
import { timeOps } from './lib/latency.js';
import { table, writeReport } from './lib/report.js';

const { values } = parseArgs({ options: { ops: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '5' }, bindings: { type: 'string', default: '10,1000,10000' } } });
const ops = Number(values.ops);
const rounds = Number(values.rounds);
const teardowns: (() => unknown)[] = [];
const t = { teardown: (fn: () => unknown) => { teardowns.push(fn); } };
const RBAC = 'rbac.authorization.k8s.io';
const objects = 50;

async function must(p: Promise<{ status: number; text: string }>, ...want: number[]): Promise<void> {
  const r = await p;
  if (!want.includes(r.status)) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 200)}`);
}

const agent = () => new Agent({ keepAlive: true, maxSockets: 16 });
const adminOf = (p: APIServerProcess) => new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem }, agent());

/** The same objects on both servers: namespaces, ConfigMaps, and `target` bindings in all. */
async function populate(api: APIClient, have: number, target: number): Promise<void> {
  if (have === 0) {
    await must(api.post('/api/v1/namespaces', { metadata: { name: 'bench' } }), 201);
    for (let i = 0; i < objects; i++) await must(api.post('/api/v1/namespaces/bench/configmaps', { metadata: { name: `cm-${i}` }, data: { v: 'x'.repeat(1024) } }), 201);
    await must(api.post(`/apis/${RBAC}/v1/namespaces/bench/roles`, { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }), 201);
    await must(api.post(`/apis/${RBAC}/v1/namespaces/bench/rolebindings`, { metadata: { name: 'bench-user' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'reader' }, subjects: [{ apiGroup: RBAC, kind: 'User', name: 'bench-user' }] }), 201);
    for (let n = 0; n < 20; n++) await must(api.post('/api/v1/namespaces', { metadata: { name: `ns-${n}` } }), 201);
    have = 1;
  }
  // The rest: half RoleBindings across 20 namespaces, half ClusterRoleBindings, to other users and groups.
  await timeOps('populate', target - have, 16, async (j) => {
    const i = have + j;
    const subjects = [{ apiGroup: RBAC, kind: i % 3 ? 'User' : 'Group', name: `subject-${i}` }];
    if (i % 2) await must(api.post(`/apis/${RBAC}/v1/namespaces/ns-${i % 20}/rolebindings`, { metadata: { name: `rb-${i}` }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects }), 201);
    else await must(api.post(`/apis/${RBAC}/v1/clusterrolebindings`, { metadata: { name: `crb-${i}` }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects }), 201);
  });
}

/** 4 gets to 1 list of the namespace's 50 ConfigMaps, 16 at a time. */
async function mix(api: APIClient, label: string): Promise<number> {
  const r = await timeOps(label, ops, 16, (i) => (i % 5 === 4
    ? must(api.get('/api/v1/namespaces/bench/configmaps'), 200)
    : must(api.get(`/api/v1/namespaces/bench/configmaps/cm-${i % objects}`), 200)));
  return r.opsPerSec;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const rbac = await startAPIServerProcess(t);
  const allow = await startAPIServerProcess(t, { args: ['--authorization-mode', 'AlwaysAllow'] });
  const user = (p: APIServerProcess) => {
    const kp = issueCert(p.pki.ca, { commonName: 'bench-user', organizations: ['bench-group'], usage: 'client' });
    return new APIClient(p.port, { ca: p.pki.ca.certPem, cert: kp.certPem, key: kp.keyPem }, agent());
  };
  const clients = { rbac: user(rbac), allow: user(allow) };
  const rows: (string | number)[][] = [];
  let have = 0;
  for (const target of values.bindings.split(',').map(Number)) {
    await Promise.all([populate(adminOf(rbac), have, target), populate(adminOf(allow), have, target)]);
    have = target;
    // The RBAC server's cache has every binding once the user's own request is allowed and a list counts them all.
    await must(clients.rbac.get('/api/v1/namespaces/bench/configmaps/cm-0'), 200);
    await mix(clients.rbac, 'warm-up'); await mix(clients.allow, 'warm-up');
    const r: number[] = [], a: number[] = [];
    for (let i = 0; i < rounds; i++) {
      r.push(await mix(clients.rbac, `RBAC ${target}`));
      a.push(await mix(clients.allow, `AlwaysAllow ${target}`));
    }
    const mr = median(r), ma = median(a);
    console.log(`${target} bindings: RBAC ${mr.toFixed(0)} ops/s, AlwaysAllow ${ma.toFixed(0)} ops/s`);
    rows.push([target.toLocaleString('en'), mr.toFixed(0), ma.toFixed(0), `${(mr / ma).toFixed(3)}×`, `${((1 - mr / ma) * 100).toFixed(1)}%`]);
  }
  const body = `Request throughput of a get/list mix (4 GETs of one 1 KB ConfigMap to 1 LIST of the namespace's ${objects}, 16 concurrent, keep-alive TLS, client certificate) by a user outside system:masters whose access comes from one RoleBinding, so RBAC decides every request. Two \`capstan apiserver\` processes (SQLite) run at the same time: the default \`--authorization-mode RBAC\` and \`AlwaysAllow\`, both holding the same objects and bindings (the other bindings grant \`view\` to other users and groups, half as RoleBindings over 20 namespaces, half as ClusterRoleBindings). ${ops} requests per round, ${rounds} rounds alternating between the servers; medians.\n\n` +
    table(['bindings', 'RBAC ops/s', 'AlwaysAllow ops/s', 'RBAC ÷ AlwaysAllow', 'cost'], rows);
  writeReport('rbac', 'RBAC authorization cost', body);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
