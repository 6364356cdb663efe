// CEL's optional syntax (`.?`, `[?k]`, optional entries in list and map literals,
// optional.of/none, orValue, hasValue), cel.bind, comments and RE2 patterns, as users write
// them through kubectl: in a CRD's x-kubernetes-validations and in a ValidatingAdmissionPolicy.
// Also what kube-apiserver checks when these are written: the per-rule and whole-schema cost
// estimates of a CRD, and a policy's type checking in `status.typeChecking`.
import t from 'tap';
import { join } from 'node:path';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor, eventually } from '../helpers/kubectl.js';
import { writeKubeconfig } from '../../src/client/index.js';

const api = await startAPIServer(t);
const kubeconfig = join(api.dir, 'admin.kubeconfig');
writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: api.pki.admin.certPem, keyPem: api.pki.admin.keyPem });
const k = kubectlFor(t, kubeconfig);

/** A namespaced cel.example.com/v1 kind whose `spec` schema (YAML at its indentation) is given. */
const crdOf = (plural: string, kind: string, spec: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.cel.example.com}
spec:
  group: cel.example.com
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
${spec}
`;

const crd = (rules: string) => crdOf('pools', 'Pool', `            x-kubernetes-validations:
${rules}
            properties:
              size: {type: integer}
              limits: {type: object, properties: {max: {type: integer}}}
              zones: {type: array, items: {type: string}}`);

t.test('x-kubernetes-validations with optional syntax and cel.bind', async (t) => {
  await k.ok(['apply', '-f', '-'], crd(`            - rule: "self.size <= self.?limits.?max.orValue(10)"
              message: size above the limit
            - rule: "cel.bind(first, self.?zones[?0].orValue(''), first == '' || first.startsWith('zone-'))"
              message: the first zone must be named zone-*
            - rule: "!self.?limits.hasValue() || optional.of(self.limits).value().max > 0"
              message: max must be positive`));
  await k.ok(['wait', '--for=condition=Established', '--timeout=20s', 'crd/pools.cel.example.com']);
  const pool = (name: string, spec: string) => `apiVersion: cel.example.com/v1\nkind: Pool\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
  await eventually(async () => (await k(['create', '--dry-run=server', '-f', '-'], pool('probe', '{size: 1}'))).code === 0, 15_000, 'pools served');

  t.equal((await k(['create', '-f', '-'], pool('small', '{size: 9}'))).code, 0, 'no limits: the default 10 holds');
  const big = await k(['create', '-f', '-'], pool('big', '{size: 11}'));
  t.match(big.stderr, /The Pool "big" is invalid: spec: Invalid value: "object": size above the limit/);
  t.equal((await k(['create', '-f', '-'], pool('limited', '{size: 20, limits: {max: 30}, zones: [zone-a, b]}'))).code, 0, 'the limit read through .?');
  const zone = await k(['create', '-f', '-'], pool('zone', '{size: 1, zones: [east]}'));
  t.match(zone.stderr, /spec: Invalid value: "object": the first zone must be named zone-\*/);
  const zero = await k(['create', '-f', '-'], pool('zero', '{size: 0, limits: {max: 0}}'));
  t.match(zero.stderr, /spec: Invalid value: "object": max must be positive/);
});

t.test('optional literal entries, comments and RE2 patterns in rules', async (t) => {
  await k.ok(['apply', '-f', '-'], crdOf('slots', 'Slot', `            x-kubernetes-validations:
            - rule: "size([?self.?a, ?self.?b]) <= 1 // at most one of a and b"
              message: a and b are exclusive
            - rule: "{'n': 1, ?'a': self.?a}.size() >= 1"
            - rule: "!has(self.a) || self.a.matches('^(?i)[[:alpha:]]+$')"
              message: a is letters only
            properties:
              a: {type: string}
              b: {type: string}`));
  await k.ok(['wait', '--for=condition=Established', '--timeout=20s', 'crd/slots.cel.example.com']);
  const slot = (name: string, spec: string) => `apiVersion: cel.example.com/v1\nkind: Slot\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
  await eventually(async () => (await k(['create', '--dry-run=server', '-f', '-'], slot('probe', '{}'))).code === 0, 15_000, 'slots served');
  t.equal((await k(['create', '-f', '-'], slot('one', '{a: Abc}'))).code, 0);
  t.match((await k(['create', '-f', '-'], slot('two', '{a: x, b: z}'))).stderr, /spec: Invalid value: "object": a and b are exclusive/);
  t.match((await k(['create', '-f', '-'], slot('digits', '{a: a1}'))).stderr, /spec: Invalid value: "object": a is letters only/);
  const look = await k(['apply', '-f', '-'], crdOf('looks', 'Look', `            x-kubernetes-validations:
            - rule: "self.a.matches('^x(?!y)')"
            properties:
              a: {type: string}`));
  t.not(look.code, 0);
  t.match(look.stderr, /x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: ERROR: <input>:1:\d+: invalid matches argument: error parsing regexp: invalid or unsupported Perl syntax: `\(\?!`/);
});

t.test('a ValidatingAdmissionPolicy with optional syntax and cel.bind', async (t) => {
  await k.ok(['create', 'namespace', 'celvap']);
  await k.ok(['label', 'namespace', 'celvap', 'celvap=yes']);
  await k.ok(['apply', '-f', '-'], `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: tier-label}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "cel.bind(tier, object.metadata.?labels[?'tier'].orValue('none'), tier in ['gold', 'silver'])"
    messageExpression: "'tier ' + object.metadata.?labels[?'tier'].orValue('none') + ' is not allowed'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: tier-label}
spec:
  policyName: tier-label
  validationActions: [Deny]
  matchResources: {namespaceSelector: {matchLabels: {celvap: "yes"}}}
`);
  let r = { code: 0, stdout: '', stderr: '' };
  await eventually(async () => { r = await k(['create', 'configmap', 'plain', '-n', 'celvap']); return r.code !== 0; }, 15_000, 'the policy to be live');
  t.match(r.stderr, 'ValidatingAdmissionPolicy \'tier-label\' with binding \'tier-label\' denied request: tier none is not allowed');
  const gold = await k(['apply', '-n', 'celvap', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gold, labels: {tier: gold}}\n');
  t.equal(gold.code, 0, gold.stderr);
});

t.test('a rule whose estimated cost exceeds the budget is refused when the CRD is written', async (t) => {
  const tags = (bounds: string, rule: string) => crdOf('tagsets', 'TagSet', `            properties:
              tags:
                type: array
                ${bounds}
                items: {type: string}
                x-kubernetes-validations:
                - rule: "${rule}"
                  message: tags must be unique`);
  const quadratic = 'self.all(x, self.exists_one(y, x == y))';
  const r = await k(['apply', '-f', '-'], tags('', quadratic));
  t.not(r.code, 0);
  const path = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule';
  const hint = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  t.match(r.stderr, 'The CustomResourceDefinition "tagsets.cel.example.com" is invalid: ');
  t.match(r.stderr, `* ${path}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${hint}`);
  // Alone it is also over the whole schema's total, which upstream reports too.
  t.match(r.stderr, `* ${path}: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema`);
  t.match(r.stderr, `* spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}`);
  t.equal((await k(['get', 'crd', 'tagsets.cel.example.com'])).code, 1, 'not created');
  const bounded = await k(['apply', '-f', '-'], tags('maxItems: 20', quadratic));
  t.equal(bounded.code, 0, `with maxItems the same rule is accepted: ${bounded.stderr}`);
  const linear = await k(['apply', '-f', '-'], tags('', 'self.all(x, x.size() < 64)'));
  t.equal(linear.code, 0, `a linear rule over an unbounded list is accepted: ${linear.stderr}`);
});

t.test('rules within their own budget but over the whole-schema total are refused', async (t) => {
  const rules = Array.from({ length: 30 }, (_, i) => `                  - rule: "self.s.contains('${i}')"`).join('\n');
  const spec = (maxLength: number) => `            properties:
              items:
                type: array
                maxItems: 1000
                items:
                  type: object
                  properties: {s: {type: string, maxLength: ${maxLength}}}
                  x-kubernetes-validations:
${rules}`;
  const r = await k(['apply', '-f', '-'], crdOf('totals', 'Total', spec(50000)));
  t.not(r.code, 0);
  t.match(r.stderr, /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[items\]\.items\.x-kubernetes-validations\[\d+\]\.rule: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema/);
  t.match(r.stderr, /spec\.versions\[0\]\.schema\.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\.5x/);
  t.equal((await k(['get', 'crd', 'totals.cel.example.com'])).code, 1, 'not created');
  const ok = await k(['apply', '-f', '-'], crdOf('totals', 'Total', spec(1000)));
  t.equal(ok.code, 0, `with shorter strings it fits: ${ok.stderr}`);
});

t.test('a policy\'s expressions are type checked against the kinds it matches: kubectl shows status.typeChecking', async (t) => {
  const vap = (expression: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typed}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments, replicasets]}]
  validations:
  - expression: "${expression}"
`;
  await k.ok(['apply', '-f', '-'], vap("object.replicas > 1 && params.data.max != ''"));
  let status: { observedGeneration?: number; typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] } } = {};
  await eventually(async () => {
    status = JSON.parse(await k.ok(['get', 'validatingadmissionpolicy', 'typed', '-o', 'json'])).status ?? {};
    return status.observedGeneration === 1;
  }, 15_000, 'the policy to be type checked');
  t.same(status.typeChecking, { expressionWarnings: [{
    fieldRef: 'spec.validations[0].expression',
    warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1 && params.data.max != ''\n | ......^\n"
      + "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1 && params.data.max != ''\n | ......^",
  }] });
  const yaml = (await k.ok(['get', 'validatingadmissionpolicy', 'typed', '-o', 'yaml']));
  t.match(yaml, /typeChecking:\n\s+expressionWarnings:\n\s+- fieldRef: spec\.validations\[0\]\.expression\n\s+warning: \|-?\n\s+apps\/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'/);
  await k.ok(['apply', '-f', '-'], vap("object.spec.replicas > 1 && params.data.max != ''"));
  await eventually(async () => {
    status = JSON.parse(await k.ok(['get', 'validatingadmissionpolicy', 'typed', '-o', 'json'])).status ?? {};
    return status.observedGeneration === 2;
  }, 15_000, 'the new generation to be checked');
  t.same(status.typeChecking, {}, 'fixed: checked, nothing found');
});
