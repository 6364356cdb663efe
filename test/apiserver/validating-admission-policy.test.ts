// ValidatingAdmissionPolicy through the in-process API server: variables and namespaceObject,
// the authorizer variable answered by RBAC for the requester, excludeResourceRules and the
// object selector, failurePolicy Fail and Ignore on an evaluation error, and Warn + Deny
// bindings of one policy.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';
import { envelope, msg, str } from '../helpers/protobuf-wire.js';

const api = await startAPIServer(t);
const c = api.client;
const alice = { headers: { 'Impersonate-User': 'alice' } };
let n = 0;

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  const name = `vap-${++n}`;
  const res = await c.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { ...labels, 'vap-test': name } } });
  if (res.status !== 201) throw new Error(res.text);
  return name;
}

async function policy(name: string, spec: Record<string, unknown>, ns: string, actions = ['Deny']): Promise<void> {
  const p = await c.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] }, ...spec },
  });
  if (p.status !== 201) throw new Error(p.text);
  const b = await c.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `${name}-binding` },
    spec: { policyName: name, validationActions: actions, matchResources: { namespaceSelector: { matchLabels: { 'vap-test': ns } } } },
  });
  if (b.status !== 201) throw new Error(b.text);
}

const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
const create = (ns: string, body: unknown, opts = {}) => c.post(`/api/v1/namespaces/${ns}/configmaps`, body, opts);
const live = (ns: string, probe: () => Promise<boolean>) => eventually(probe, 15_000, `the policy in ${ns} to be live`);

t.test('defaults and validation of the objects themselves', async (t) => {
  const p = await c.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'defaults' },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'true' }] },
  });
  t.equal(p.status, 201, p.text);
  t.equal(p.body.spec.failurePolicy, 'Fail');
  t.equal(p.body.spec.matchConstraints.matchPolicy, 'Equivalent');
  t.equal(p.body.spec.matchConstraints.resourceRules[0].scope, '*');
  t.equal(p.body.metadata.generation, 1);
  const bad = await c.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bad' },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'nope.x == 1' }] },
  });
  t.equal(bad.status, 422);
  t.match(bad.body.message, `spec.validations[0].expression: Invalid value: "nope.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')`);
  const both = await c.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'both' },
    spec: { policyName: 'defaults', validationActions: ['Deny', 'Warn'] },
  });
  t.equal(both.status, 422);
  t.match(both.body.message, 'spec.validationActions: Invalid value');
});

t.test('variables, namespaceObject, messageExpression and reason', async (t) => {
  const ns = await namespace({ tier: 'gold' });
  await policy('vars', {
    matchConditions: [{ name: 'not-exempt', expression: "object.metadata.name != 'exempt'" }],
    variables: [{ name: 'size', expression: 'size(object.data)' }, { name: 'limit', expression: "namespaceObject.metadata.labels['tier'] == 'gold' ? 2 : 1" }],
    validations: [{ expression: "namespaceObject.kind == 'Namespace' && namespaceObject.apiVersion == 'v1'" }, { expression: 'variables.size <= variables.limit', messageExpression: "'at most ' + string(variables.limit) + ' keys, got ' + string(variables.size)", reason: 'RequestEntityTooLarge' }],
  }, ns);
  await live(ns, async () => (await create(ns, cm('probe', { a: '1', b: '2', c: '3' }), { headers: {} })).status === 413);
  t.equal((await create(ns, cm('two', { a: '1', b: '2' }))).status, 201);
  const over = await create(ns, cm('three', { a: '1', b: '2', c: '3' }));
  t.equal(over.status, 413);
  t.equal(over.body.reason, 'RequestEntityTooLarge');
  t.equal(over.body.message, `configmaps "three" is forbidden: ValidatingAdmissionPolicy 'vars' with binding 'vars-binding' denied request: at most 2 keys, got 3`);
  t.equal((await create(ns, cm('exempt', { a: '1', b: '2', c: '3' }))).status, 201, 'a false matchCondition skips the policy');
});

t.test('authorizer: the requester\'s own permissions, by RBAC', async (t) => {
  const ns = await namespace();
  await policy('can-read-secret', {
    validations: [{ expression: "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).name('s').check('get').allowed()", message: 'you must be able to read secret s' }],
  }, ns);
  const role = (name: string, resources: string[], verbs: string[]) => c.post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources, verbs }],
  });
  const bind = (name: string) => c.post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  t.equal((await role('cm', ['configmaps'], ['create'])).status, 201);
  t.equal((await bind('cm')).status, 201);
  await live(ns, async () => (await create(ns, cm('probe'), alice)).body?.message?.includes('you must be able to read secret s'));
  t.equal((await create(ns, cm('admin'))).status, 201, 'system:masters may read every secret');
  t.equal((await role('secret', ['secrets'], ['get'])).status, 201);
  t.equal((await bind('secret')).status, 201);
  await eventually(async () => (await create(ns, cm('alice'), alice)).status === 201, 15_000, 'alice to be allowed once she may read the secret');
});

t.test('excludeResourceRules, objectSelector, failurePolicy on an evaluation error', async (t) => {
  const ns = await namespace();
  await policy('needs-owner', {
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], resourceNames: ['exempt'] }],
      objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
    },
    validations: [{ expression: "object.data.owner != ''" }],
  }, ns);
  await live(ns, async () => (await create(ns, cm('probe'))).status === 422);
  const err = await create(ns, cm('noowner'));
  t.equal(err.status, 422);
  t.match(err.body.message, `ValidatingAdmissionPolicy 'needs-owner' with binding 'needs-owner-binding' denied request: expression 'object.data.owner != ''' resulted in error: `);
  t.equal((await create(ns, cm('owned', { owner: 'me' }))).status, 201);
  t.equal((await create(ns, cm('exempt'))).status, 201, 'excluded by name');
  t.equal((await create(ns, cm('skipped', {}, { skip: 'yes' }))).status, 201, 'not selected by the object selector');
  const p = await c.get('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/needs-owner');
  const ignore = await c.put('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/needs-owner', { ...p.body, spec: { ...p.body.spec, failurePolicy: 'Ignore' } });
  t.equal(ignore.status, 200, ignore.text);
  t.equal(ignore.body.metadata.generation, 2);
  await eventually(async () => (await create(ns, cm('ignored'))).status === 201, 15_000, 'failurePolicy Ignore to let the error through');
  t.equal((await create(ns, cm('empty-owner', { owner: '' }))).status, 422, 'a false validation still denies under Ignore');
});

t.test('Warn binding: a Warning header, the object stored', async (t) => {
  const ns = await namespace();
  await policy('warn-only', {
    validations: [{ expression: "has(object.metadata.labels) && 'app' in object.metadata.labels", message: 'configmaps should have an app label' }],
    auditAnnotations: [{ key: 'name', valueExpression: "'cm ' + object.metadata.name" }, { key: 'none', valueExpression: 'null' }],
  }, ns, ['Warn', 'Audit']);
  await live(ns, async () => String((await create(ns, cm(`probe${Math.random().toString(36).slice(2, 8)}`))).headers.warning ?? '').includes('app label'));
  const res = await create(ns, cm('unlabelled'));
  t.equal(res.status, 201);
  t.match(String(res.headers.warning), `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-only' with binding 'warn-only-binding': configmaps should have an app label"`);
  // Audit: upstream's validation_failure audit annotation, logged for want of an audit log.
  const audit = api.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'ValidatingAdmissionPolicy audit annotations' && l.name === 'unlabelled');
  t.ok(audit, 'the request\'s audit annotations are logged');
  t.same(JSON.parse(audit?.annotations['validation.policy.admission.k8s.io/validation_failure'] ?? '[]'), [
    { message: 'configmaps should have an app label', policy: 'warn-only', binding: 'warn-only-binding', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
  ]);
  t.equal(audit?.annotations['warn-only/name'], 'cm unlabelled', 'an auditAnnotation under <policy>/<key>');
  t.notOk('warn-only/none' in (audit?.annotations ?? {}), 'a null value is left out');

  // Under failurePolicy Fail an evaluation error is enforced by the binding's actions: here a warning, not a refusal.
  const ns2 = await namespace();
  await policy('warn-error', { validations: [{ expression: "object.data.missing == 'x'" }] }, ns2, ['Warn']);
  await live(ns2, async () => String((await create(ns2, cm(`probe${Math.random().toString(36).slice(2, 8)}`))).headers.warning ?? '').includes('warn-error'));
  const errored = await create(ns2, cm('errored'));
  t.equal(errored.status, 201);
  t.match(String(errored.headers.warning), `Validation failed for ValidatingAdmissionPolicy 'warn-error' with binding 'warn-error-binding': expression 'object.data.missing == 'x'' resulted in error`);
});

t.test('a policy sent as protobuf (by typed clients): nested embedded rule fields decode', async (t) => {
  // Numbers from generated.proto: spec 2 > matchConstraints 2 > resourceRules 3 > NamedRuleWithOperations
  // {resourceNames 1, RuleWithOperations 2 {operations 1, Rule 2 {apiGroups 1, apiVersions 2, resources 3, scope 4}}}.
  const rule = msg(3, str(1, 'only-this'), msg(2, str(1, 'CREATE'), msg(2, str(1, ''), str(2, 'v1'), str(3, 'configmaps'), str(4, 'Namespaced'))));
  const body = envelope('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy',
    msg(1, str(1, 'from-protobuf')),
    msg(2, msg(1, str(1, 'v1'), str(2, 'ConfigMap')), msg(2, rule, str(7, 'Exact')), msg(3, str(1, 'true'), str(2, 'never shown'), str(3, 'Forbidden')), str(4, 'Ignore'), msg(7, str(1, 'v'), str(2, '1'))));
  const res = await c.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body, contentType: 'application/vnd.kubernetes.protobuf' });
  t.equal(res.status, 201, res.text);
  const spec = (res.body as { spec: Record<string, unknown> }).spec;
  t.strictSame(spec.paramKind, { apiVersion: 'v1', kind: 'ConfigMap' });
  t.strictSame(spec.matchConstraints, {
    resourceRules: [{ resourceNames: ['only-this'], operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }],
    matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {},
  });
  t.strictSame(spec.validations, [{ expression: 'true', message: 'never shown', reason: 'Forbidden' }]);
  t.equal(spec.failurePolicy, 'Ignore');
  t.strictSame(spec.variables, [{ name: 'v', expression: '1' }]);
});
