// Type checking of ValidatingAdmissionPolicy expressions against the schemas of the kinds a
// policy matches, with upstream's warnings (`apps/v1, Kind=Deployment: ERROR: <input>:1:7:
// undefined field 'replicas'` and the caret line), paramKind's schema for `params`, several
// kinds in one warning, wildcards and unserved kinds left unchecked, at most 10 kinds.
import t from 'tap';
import '../../../src/api/schemas.js';
import { typeCheckPolicy, type KindOf } from '../../../src/apiserver/admission/policy/typecheck.js';
import { compile, typeCheck, DYN } from '../../../src/apiserver/cel/index.js';

const served: Record<string, string> = {
  'apps/v1/deployments': 'Deployment', 'apps/v1/replicasets': 'ReplicaSet', '/v1/configmaps': 'ConfigMap', '/v1/pods': 'Pod',
};
const kindOf: KindOf = (g, v, r) => served[`${g}/${v}/${r}`];

const policy = (rules: object[], validations: object[], extra: object = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' },
  spec: { matchConstraints: { resourceRules: rules }, validations, ...extra },
});
const deployments = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] };

t.test('an undefined field, in upstream\'s words and layout', async (t) => {
  const w = typeCheckPolicy(policy([deployments], [{ expression: 'object.replicas > 1' }]), kindOf);
  t.same(w, [{ fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^" }]);
  t.same(typeCheckPolicy(policy([deployments], [{ expression: 'object.spec.replicas > 1 && object.metadata.name != ""' }]), kindOf), [], 'a correct expression: nothing');
});

t.test('operators with no overload for the schema\'s types; messageExpression checked too', async (t) => {
  const w = typeCheckPolicy(policy([deployments], [{ expression: "object.spec.replicas <= '5'", messageExpression: "object.spec.replicas + ' replicas'" }]), kindOf);
  t.equal(w.length, 2);
  t.match(w[0], { fieldRef: 'spec.validations[0].expression', warning: /^apps\/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_<=_' applied to '\(int, string\)'/ });
  t.match(w[1], { fieldRef: 'spec.validations[0].messageExpression', warning: /found no matching overload for '_\+_' applied to '\(int, string\)'/ });
  const m = typeCheckPolicy(policy([deployments], [{ expression: "object.spec.replicas.startsWith('1')" }]), kindOf);
  t.match(m[0].warning, /found no matching overload for 'startsWith' applied to 'int\.\(string\)'/);
});

t.test('every matched kind is checked; one warning lists each kind\'s findings', async (t) => {
  const both = { ...deployments, resources: ['replicasets', 'deployments'] };
  const w = typeCheckPolicy(policy([both], [{ expression: 'object.replicas > 1' }]), kindOf);
  t.equal(w[0].warning, "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^\napps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^");
});

t.test('wildcards, subresources and unserved kinds are not checked', async (t) => {
  const bad = [{ expression: 'object.nope' }];
  t.same(typeCheckPolicy(policy([{ ...deployments, resources: ['*'] }], bad), kindOf), []);
  t.same(typeCheckPolicy(policy([{ ...deployments, apiVersions: ['*'] }], bad), kindOf), []);
  t.same(typeCheckPolicy(policy([{ ...deployments, resources: ['deployments/scale'] }], bad), kindOf), []);
  t.same(typeCheckPolicy(policy([{ ...deployments, apiGroups: ['example.com'], resources: ['widgets'] }], bad), kindOf), []);
});

t.test('params typed by paramKind; variables, request and the macros keep their types', async (t) => {
  const configmaps = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] };
  const w = typeCheckPolicy(policy([configmaps], [
    { expression: "params.data.max == '1' && params.spec == null" },
    { expression: 'variables.labels.all(k, k.size() > 0) && variables.labels.size() > 0 && request.userInfo.username != 1' },
    { expression: 'object.data.exists(k, object.data[k].nope)' },
  ], { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, variables: [{ name: 'labels', expression: 'object.metadata.labels' }] }), kindOf);
  t.equal(w.length, 3);
  t.match(w[0].warning, /^\/v1, Kind=ConfigMap: ERROR: <input>:1:33: undefined field 'spec'/);
  t.match(w[1].warning, /found no matching overload for '_!=_' applied to '\(string, int\)'/);
  t.match(w[2].warning, /type 'string' does not support field selection/);
});

t.test('dyn passes: the checker only reports what cel-go would', async (t) => {
  const p = compile('object.anything.at.all + 1 == "x" || params.x', ['object', 'params']);
  t.same(typeCheck(p, { object: DYN, params: DYN }), []);
});
