// CEL in admission and in custom resources, end to end: real kubectl against `capstan up`.
// A ValidatingAdmissionPolicy refuses a Deployment with too many replicas in upstream's words
// and a Warn binding makes kubectl print a warning; a policy reads its limit from a ConfigMap
// bound as its params; a webhook's matchConditions keep requests from it; a CRD's
// x-kubernetes-validations refuse bad objects and a change to an immutable field (oldSelf),
// and a CRD whose rule does not compile is refused.
import t from 'tap';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { startWebhookServer } from '../helpers/webhook-server.js';

const up = await startCapstanUp(t);
const k = kubectlFor(t, up.kubeconfig);

async function namespace(name: string): Promise<void> {
  await k.ok(['create', 'namespace', name]);
  await k.ok(['label', 'namespace', name, `cel-test=${name}`]);
}

const deployment = (name: string, replicas: number, labels = 'app: web') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, labels: {${labels}}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: busybox}]}
`;

const policy = (name: string, body: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
${body}`;

const binding = (name: string, policyName: string, ns: string, extra: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${policyName}
  matchResources: {namespaceSelector: {matchLabels: {cel-test: ${ns}}}}
${extra}`;

t.test('a ValidatingAdmissionPolicy denies too many replicas; a Warn binding warns', async (t) => {
  await namespace('vap-deny');
  await k.ok(['apply', '-f', '-'], policy('max-replicas', '  validations: [{expression: "object.spec.replicas <= 5"}]\n'));
  await k.ok(['apply', '-f', '-'], binding('max-replicas-binding', 'max-replicas', 'vap-deny', '  validationActions: [Deny]\n'));
  t.match(await k.ok(['get', 'validatingadmissionpolicies']), /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\nmax-replicas\s+1\s+<unset>\s/);
  t.match(await k.ok(['explain', 'validatingadmissionpolicy.spec.validations']), /FIELD: validations <\[\]Validation>[\s\S]*expression\s+<string> -required-/);
  t.match(await k.ok(['get', 'validatingadmissionpolicybindings']), /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\nmax-replicas-binding\s+max-replicas\s+<unset>\s/);
  await eventually(async () => (await k(['apply', '-n', 'vap-deny', '-f', '-', '--dry-run=server'], deployment('probe', 10))).code !== 0, 15_000, 'the policy to be live');

  const refused = await k(['apply', '-n', 'vap-deny', '-f', '-'], deployment('web', 10));
  t.not(refused.code, 0);
  t.match(refused.stderr, `The deployments "web" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5`);
  t.equal((await k(['get', 'deployment', 'web', '-n', 'vap-deny'])).code, 1, 'nothing stored');
  await k.ok(['apply', '-n', 'vap-deny', '-f', '-'], deployment('web', 3));
  const grown = await k(['apply', '-n', 'vap-deny', '-f', '-'], deployment('web', 8));
  t.not(grown.code, 0, 'an update is checked as well');
  t.match(grown.stderr, 'denied request: failed expression: object.spec.replicas <= 5');
  // The rule names deployments, not deployments/scale: the scale subresource is not matched, as upstream.
  await k.ok(['scale', 'deployment', 'web', '-n', 'vap-deny', '--replicas=8']);

  await k.ok(['apply', '-f', '-'], policy('team-label', `  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    messageExpression: "'deployment ' + object.metadata.name + ' has no team label'"
`));
  await k.ok(['apply', '-f', '-'], binding('team-label-warn', 'team-label', 'vap-deny', '  validationActions: [Warn]\n'));
  await eventually(async () => (await k(['apply', '-n', 'vap-deny', '-f', '-', '--dry-run=server'], deployment('probe', 1))).stderr.includes('team label'), 15_000, 'the Warn binding to be live');
  const warned = await k(['apply', '-n', 'vap-deny', '-f', '-'], deployment('untagged', 2));
  t.equal(warned.code, 0, warned.stderr);
  t.match(warned.stderr, "Warning: Validation failed for ValidatingAdmissionPolicy 'team-label' with binding 'team-label-warn': deployment untagged has no team label");
  const tagged = await k(['apply', '-n', 'vap-deny', '-f', '-'], deployment('tagged', 2, 'team: a'));
  t.equal(tagged.code, 0);
  t.notMatch(tagged.stderr, 'Warning');

  const bad = await k(['apply', '-f', '-'], policy('broken', '  validations: [{expression: "object.spec.replicas <="}]\n'));
  t.not(bad.code, 0, 'a policy whose expression does not compile is refused');
  t.match(bad.stderr, /spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas <=": compilation failed: ERROR: <input>:1:\d+: Syntax error/);
});

t.test('a policy with a ConfigMap as params', async (t) => {
  await namespace('vap-params');
  await k.ok(['apply', '-f', '-'], policy('replica-limit', `  paramKind: {apiVersion: v1, kind: ConfigMap}
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas must be at most ' + params.data.maxReplicas + ' (' + params.kind + ' ' + params.metadata.name + ')'"
    reason: Forbidden
`));
  await k.ok(['apply', '-f', '-'], binding('replica-limit-binding', 'replica-limit', 'vap-params', `  validationActions: [Deny]
  paramRef: {name: limits, namespace: vap-params, parameterNotFoundAction: Deny}
`));
  await eventually(async () => (await k(['apply', '-n', 'vap-params', '-f', '-', '--dry-run=server'], deployment('probe', 1))).stderr.includes('no params found'), 15_000, 'the binding to be live');
  const missing = await k(['apply', '-n', 'vap-params', '-f', '-'], deployment('web', 1));
  t.not(missing.code, 0, 'no params and parameterNotFoundAction Deny');
  t.match(missing.stderr, "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: no params found for policy binding with `Deny` parameterNotFoundAction");

  await k.ok(['create', 'configmap', 'limits', '-n', 'vap-params', '--from-literal=maxReplicas=3']);
  await eventually(async () => (await k(['apply', '-n', 'vap-params', '-f', '-', '--dry-run=server'], deployment('probe', 1))).code === 0, 15_000, 'the params to be found');
  const over = await k(['apply', '-n', 'vap-params', '-f', '-'], deployment('web', 4));
  t.not(over.code, 0);
  t.match(over.stderr, "Error from server (Forbidden): error when creating \"STDIN\": deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: replicas must be at most 3 (ConfigMap limits)");
  await k.ok(['apply', '-n', 'vap-params', '-f', '-'], deployment('web', 3));
  await k.ok(['patch', 'configmap', 'limits', '-n', 'vap-params', '-p', '{"data":{"maxReplicas":"6"}}']);
  await eventually(async () => (await k(['apply', '-n', 'vap-params', '-f', '-'], deployment('web', 6))).code === 0, 15_000, 'the new limit to apply');
});

t.test('webhook matchConditions keep requests from a webhook', async (t) => {
  await namespace('matchcond');
  const hook = await startWebhookServer(t, () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'refused by the test webhook' } }));
  const config = (conditions: string, policy = 'Fail') => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: matchcond}
webhooks:
- name: matchcond.example.com
  clientConfig: {url: "https://127.0.0.1:${hook.port}/validate", caBundle: ${hook.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {cel-test: matchcond}}
  sideEffects: None
  failurePolicy: ${policy}
  admissionReviewVersions: [v1]
  matchConditions:
${conditions}`;
  await k.ok(['apply', '-f', '-'], config(`  - name: not-skipped
    expression: "!object.metadata.name.startsWith('skip-')"
  - name: not-admin
    expression: "request.userInfo.username != 'nobody'"
`));
  await eventually(async () => (await k(['create', 'configmap', 'probe', '-n', 'matchcond', '--dry-run=server'])).code !== 0, 15_000, 'the webhook to be live');
  const before = hook.reviews.length;
  await k.ok(['create', 'configmap', 'skip-me', '-n', 'matchcond']);
  t.equal(hook.reviews.length, before, 'a false condition: the webhook is not called');
  const refused = await k(['create', 'configmap', 'check-me', '-n', 'matchcond']);
  t.not(refused.code, 0);
  t.match(refused.stderr, 'admission webhook "matchcond.example.com" denied the request: refused by the test webhook');
  t.ok(hook.reviews.some((r) => r.request.name === 'check-me'), 'all conditions true: the webhook is called');

  const bad = await k(['apply', '-f', '-'], config('  - name: broken\n    expression: "object.metadata.name =="\n'));
  t.not(bad.code, 0, 'a condition that does not compile is refused');
  t.match(bad.stderr, /webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: .*compilation failed/);

  await k.ok(['apply', '-f', '-'], config('  - name: errors\n    expression: "object.data.missing == \'x\'"\n'));
  await eventually(async () => (await k(['create', 'configmap', 'probe', '-n', 'matchcond', '--dry-run=server'])).stderr.includes('resulted in error'), 15_000, 'the new condition to be live');
  const failed = await k(['create', 'configmap', 'err-fail', '-n', 'matchcond']);
  t.not(failed.code, 0, 'an evaluation error with failurePolicy Fail refuses');
  t.match(failed.stderr, `configmaps "err-fail" is forbidden: expression 'object.data.missing == 'x'' resulted in error: `);
  await k.ok(['apply', '-f', '-'], config('  - name: errors\n    expression: "object.data.missing == \'x\'"\n', 'Ignore'));
  await eventually(async () => (await k(['create', 'configmap', 'err-ignore', '-n', 'matchcond'])).code === 0, 15_000, 'Ignore to skip the webhook');
});

t.test('CRD x-kubernetes-validations: rules, an immutable field via oldSelf, a rule that does not compile', async (t) => {
  await namespace('cel-crd');
  const crd = (rule: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.cel.example.com}
spec:
  group: cel.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
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
            x-kubernetes-validations:
            - rule: "${rule}"
              message: minReplicas must not exceed maxReplicas
            properties:
              minReplicas: {type: integer}
              maxReplicas: {type: integer}
              storageClass:
                type: string
                x-kubernetes-validations:
                - {rule: "self == oldSelf", message: storageClass is immutable}
              ports:
                type: array
                items:
                  type: integer
                  x-kubernetes-validations:
                  - {rule: "self > 0 && self < 65536", messageExpression: "'port ' + string(self) + ' is out of range'"}
`;
  const bad = await k(['apply', '-f', '-'], crd('self.minReplicas <= self.maxReplicas &&'));
  t.not(bad.code, 0);
  t.match(bad.stderr, /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: ERROR: <input>:1:\d+: Syntax error/);
  const undeclared = await k(['apply', '-f', '-'], crd('self.minReplicas <= maxReplicas'));
  t.not(undeclared.code, 0);
  t.match(undeclared.stderr, "undeclared reference to 'maxReplicas'");

  await k.ok(['apply', '-f', '-'], crd('self.minReplicas <= self.maxReplicas'));
  await eventually(async () => (await k(['get', 'widgets', '-n', 'cel-crd'])).code === 0, 30_000, 'widgets to be served');
  const widget = (min: number, max: number, storageClass: string, ports = '[80]') => `apiVersion: cel.example.com/v1
kind: Widget
metadata: {name: w}
spec: {minReplicas: ${min}, maxReplicas: ${max}, storageClass: ${storageClass}, ports: ${ports}}
`;
  const inverted = await k(['apply', '-n', 'cel-crd', '-f', '-'], widget(5, 3, 'fast'));
  t.not(inverted.code, 0);
  t.match(inverted.stderr, 'The Widget "w" is invalid: spec: Invalid value: "object": minReplicas must not exceed maxReplicas');
  const port = await k(['apply', '-n', 'cel-crd', '-f', '-'], widget(1, 3, 'fast', '[80, 70000]'));
  t.not(port.code, 0);
  t.match(port.stderr, 'spec.ports[1]: Invalid value: "integer": port 70000 is out of range');

  await k.ok(['apply', '-n', 'cel-crd', '-f', '-'], widget(1, 3, 'fast'));
  await k.ok(['patch', 'widget', 'w', '-n', 'cel-crd', '--type=merge', '-p', '{"spec":{"minReplicas":2,"maxReplicas":4}}']);
  const changed = await k(['patch', 'widget', 'w', '-n', 'cel-crd', '--type=merge', '-p', '{"spec":{"storageClass":"slow"}}']);
  t.not(changed.code, 0, 'the transition rule refuses a change');
  t.match(changed.stderr, 'The Widget "w" is invalid: spec.storageClass: Invalid value: "string": storageClass is immutable');
  t.equal(await k.ok(['get', 'widget', 'w', '-n', 'cel-crd', '-o', 'jsonpath={.spec.storageClass} {.spec.maxReplicas}']), 'fast 4');
});
