// networking.k8s.io/v1 NetworkPolicy through the real kubectl: discovery (short name netpol),
// apply with upstream's defaults, get/describe, and upstream's validation messages.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';

const api = await startAPIServer(t);
const kubectl = kubectlFor(t, writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`));

const policy = `
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-allow, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {team: a}}
      podSelector: {matchLabels: {role: client}}
    - ipBlock: {cidr: 10.0.0.0/16, except: [10.0.1.0/24]}
    ports:
    - port: http
    - port: 8000
      endPort: 8080
      protocol: UDP
  egress:
  - to: [{podSelector: {}}]
`;

t.test('kubectl apply, get netpol, describe', async (t) => {
  t.match(await kubectl.ok(['apply', '-f', '-'], policy), /networkpolicy.networking.k8s.io\/web-allow created/);
  const got = JSON.parse(await kubectl.ok(['get', 'netpol', 'web-allow', '-o', 'json']));
  t.same(got.spec.policyTypes, ['Ingress', 'Egress'], 'policyTypes default: Ingress, and Egress with egress rules');
  t.equal(got.spec.ingress[0].ports[0].protocol, 'TCP', 'protocol defaults to TCP');
  t.equal(got.spec.ingress[0].ports[1].protocol, 'UDP');
  t.equal(got.metadata.generation, 1);
  const table = await kubectl.ok(['get', 'networkpolicies']);
  t.match(table, /NAME\s+POD-SELECTOR\s+AGE/);
  t.match(table, /web-allow\s+app=web\s+/);
  const described = await kubectl.ok(['describe', 'netpol', 'web-allow']);
  t.match(described, /PodSelector:\s+app=web/);
  t.match(described, /10\.0\.0\.0\/16/);
  await kubectl.ok(['apply', '-f', '-'], policy);
  t.equal(JSON.parse(await kubectl.ok(['get', 'netpol', 'web-allow', '-o', 'json'])).metadata.generation, 1, 'a second apply changes no spec');
});

t.test('kubectl explain reads the schema', async (t) => {
  const out = await kubectl.ok(['explain', 'networkpolicy.spec.ingress.ports']);
  t.match(out, /endPort\s+<integer>/);
  t.match(out, /port\s+<IntOrString>/);
});

t.test('an ingress-only policy defaults to policyTypes [Ingress]', async (t) => {
  await kubectl.ok(['apply', '-f', '-'], 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: default}\nspec: {podSelector: {}}\n');
  const got = JSON.parse(await kubectl.ok(['get', 'netpol', 'deny', '-o', 'json']));
  t.same(got.spec.policyTypes, ['Ingress']);
  t.match(await kubectl.ok(['get', 'netpol', 'deny']), /deny\s+<none>/);
});

const invalid: [string, string, RegExp][] = [
  ['endPort below port', 'ingress: [{ports: [{port: 90, endPort: 80}]}]', /spec.ingress\[0\].ports\[0\].endPort: Invalid value: 90: must be greater than or equal to `port`/],
  ['endPort with a named port', 'ingress: [{ports: [{port: http, endPort: 80}]}]', /spec.ingress\[0\].ports\[0\].endPort: Invalid value: 80: may not be specified when `port` is non-numeric/],
  ['port out of range', 'ingress: [{ports: [{port: 70000}]}]', /spec.ingress\[0\].ports\[0\].port: Invalid value: 70000: must be between 1 and 65535, inclusive/],
  ['bad protocol', 'ingress: [{ports: [{protocol: ICMP, port: 1}]}]', /spec.ingress\[0\].ports\[0\].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"/],
  ['empty peer', 'egress: [{to: [{}]}]', /spec.egress\[0\].to\[0\]: Required value: must specify a peer/],
  ['ipBlock with a selector', 'ingress: [{from: [{ipBlock: {cidr: 10.0.0.0/8}, podSelector: {}}]}]', /spec.ingress\[0\].from\[0\]: Forbidden: may not specify both ipBlock and another peer/],
  ['except outside cidr', 'ingress: [{from: [{ipBlock: {cidr: 10.0.0.0/16, except: [10.1.0.0/24]}}]}]', /spec.ingress\[0\].from\[0\].ipBlock.except\[0\]: Invalid value: "10.1.0.0\/24": must be a strict subset of `cidr`/],
  ['bad policyType', 'policyTypes: [Sideways]', /spec.policyTypes\[0\]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"/],
];
for (const [name, spec, message] of invalid) {
  t.test(`refused: ${name}`, async (t) => {
    const r = await kubectl(['apply', '-f', '-'], `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bad, namespace: default}\nspec: {podSelector: {}, ${spec}}\n`);
    t.not(r.code, 0);
    t.match(r.stderr, /is invalid/);
    t.match(r.stderr, message);
  });
}

// view and edit are aggregated by the controller-manager (not running here) from these.
t.test('the default view role may read network policies, edit may write them', async (t) => {
  for (const [role, verb, allowed] of [['system:aggregate-to-view', 'list', 'yes'], ['system:aggregate-to-view', 'create', 'no'], ['system:aggregate-to-edit', 'create', 'yes']] as const) {
    await kubectl.ok(['create', 'rolebinding', `np-${role.split('-').pop()}-${verb}`, `--clusterrole=${role}`, `--user=np-${role.split('-').pop()}-${verb}`, '-n', 'default']);
    const r = await kubectl(['auth', 'can-i', verb, 'networkpolicies.networking.k8s.io', '-n', 'default', '--as', `np-${role.split('-').pop()}-${verb}`]);
    t.equal(r.stdout.trim(), allowed, `${role} ${verb}`);
  }
});
