// A CustomResourceDefinition's life as kubectl sees it, against `capstan up` (API server and
// controller-manager): create → Established and served → explain → CR CRUD with validation
// errors, defaulting and pruning → scale → printer columns → a namespace's deletion removes
// its custom resources → delete the CRD, which removes its objects and stops serving.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIClient } from '../helpers/api.js';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { kubectlFor, eventually } from '../helpers/kubectl.js';
import { ensureClusterPKI } from '../../src/cli/pki-files.js';

const dataDir = mkdtempSync(join(tmpdir(), 'capstan-crd-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const pki = ensureClusterPKI(dataDir, ['127.0.0.1'], '10.96.0.0/12');
const up = await startCapstanUp(t, [], { dataDir });
const c = new APIClient(up.port, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
t.teardown(() => c.closeAll());
const kubectl = kubectlFor(t, up.kubeconfig);

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
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
            description: The desired schedule.
            properties:
              cronSpec:
                type: string
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
                description: When the job runs, in cron syntax.
              image:
                type: string
              replicas:
                type: integer
                minimum: 1
                maximum: 10
                default: 1
              mode:
                type: string
                enum: [fast, slow]
                default: slow
            required: [image]
          status:
            type: object
            properties:
              replicas:
                type: integer
              selector:
                type: string
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
`;

t.test('a created CRD is established and served', async (t) => {
  t.match(await kubectl.ok(['apply', '-f', '-'], crd), /customresourcedefinition.apiextensions.k8s.io\/crontabs.stable.example.com created/);
  await kubectl.ok(['wait', '--for=condition=Established', '--timeout=10s', 'crd/crontabs.stable.example.com']);
  const got = await c.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com');
  const conds = Object.fromEntries(got.body.status.conditions.map((x: any) => [x.type, x]));
  t.match(conds.NamesAccepted, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  t.match(conds.Established, { status: 'True', reason: 'InitialNamesAccepted' });
  t.same(got.body.status.acceptedNames, { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
  t.same(got.body.status.storedVersions, ['v1']);
  t.equal((await kubectl(['get', 'crontabs'])).code, 0);
  t.match(await kubectl.ok(['api-resources', '--api-group=stable.example.com']), /crontabs\s+ct\s+stable.example.com\/v1\s+true\s+CronTab/);
  t.match(await kubectl.ok(['get', 'crd']), /NAME\s+CREATED AT\ncrontabs.stable.example.com\s+\d{4}-\d\d-\d\dT/);
  t.match(await kubectl.ok(['describe', 'crd', 'crontabs.stable.example.com']), /Reason:\s+InitialNamesAccepted/);
});

t.test('kubectl explain reads the published schema', async (t) => {
  const out = await kubectl.ok(['explain', 'crontabs.spec']);
  t.match(out, /KIND:\s+CronTab/);
  t.match(out, /cronSpec\s+<string>/);
  t.match(out, /When the job runs, in cron syntax./);
  t.match(out, /image\s+<string> -required-/);
});

t.test('objects validate, default and prune as upstream', async (t) => {
  const bad = await kubectl(['apply', '-f', '-'], `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: bad}
spec: {cronSpec: "* * * *", image: x, replicas: 15, mode: quick}
`);
  t.not(bad.code, 0);
  t.match(bad.stderr, /The CronTab "bad" is invalid/);
  t.match(bad.stderr, /spec.cronSpec: Invalid value: "\* \* \* \*": spec.cronSpec in body should match/);
  t.match(bad.stderr, /spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10/);
  t.match(bad.stderr, /spec.mode: Unsupported value: "quick": supported values: "fast", "slow"/);
  const missing = await kubectl(['create', '-f', '-'], `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: missing}
spec: {replicas: "two"}
`);
  t.match(missing.stderr, /spec.image: Required value/);
  t.match(missing.stderr, /spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"/);

  const strict = await kubectl(['apply', '-f', '-'], `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: strict}
spec: {image: x, colour: red}
`);
  t.match(strict.stderr, /unknown field "spec.colour"/, 'strict field validation refuses unknown fields');
  await kubectl.ok(['apply', '--validate=false', '-f', '-'], `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: good}
spec: {cronSpec: "*/5 * * * *", image: my-image, colour: red}
`);
  const good = (await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs/good')).body;
  t.equal(good.spec.replicas, 1, 'defaulted');
  t.equal(good.spec.mode, 'slow', 'defaulted');
  t.notOk('colour' in good.spec, 'pruned');
  t.equal(good.metadata.generation, 1);
  const table = await kubectl.ok(['get', 'ct']);
  t.match(table, /NAME\s+SPEC\s+REPLICAS\s+AGE/);
  t.match(table, /good\s+\*\/5 \* \* \* \*\s+1\s+\d+s/);
  t.match(await kubectl.ok(['get', 'all']), /crontab.stable.example.com\/good/, 'category all');
});

t.test('merge, JSON and server-side apply patches; strategic merge refused', async (t) => {
  await kubectl.ok(['patch', 'crontab', 'good', '--type=merge', '-p', '{"spec":{"image":"v2"}}']);
  await kubectl.ok(['patch', 'crontab', 'good', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":2}]']);
  const smp = await kubectl(['patch', 'crontab', 'good', '-p', '{"spec":{"image":"v3"}}']);
  t.match(smp.stderr, /UnsupportedMediaType|unknown format|strategic merge patch/i);
  await kubectl.ok(['apply', '--server-side', '-f', '-'], `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: ssa}
spec: {image: ssa-image, replicas: 3}
`);
  // Client-side apply of a change to an existing custom resource: kubectl reads from the
  // OpenAPI document that the PATCH takes no strategic merge patch and sends a merge patch.
  const applied = (image: string): string => `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: csa}
spec: {image: ${image}, replicas: 1}
`;
  await kubectl.ok(['apply', '-f', '-'], applied('first'));
  t.match(await kubectl.ok(['apply', '-f', '-'], applied('second')), /crontab.stable.example.com\/csa configured/);
  t.equal((await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs/csa')).body.spec.image, 'second');
  const got = (await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs/good')).body;
  t.equal(got.spec.image, 'v2');
  t.equal(got.spec.replicas, 2);
  t.equal(got.metadata.generation, 3);
  t.equal((await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs/ssa')).body.spec.replicas, 3);
});

t.test('status and scale subresources', async (t) => {
  await kubectl.ok(['scale', 'crontab/good', '--replicas=5']);
  const got = (await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs/good')).body;
  t.equal(got.spec.replicas, 5);
  const st = await c.patch('/apis/stable.example.com/v1/namespaces/default/crontabs/good/status', { status: { replicas: 4, selector: 'app=x' } }, { contentType: 'application/merge-patch+json' });
  t.equal(st.status, 200);
  const scale = (await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs/good/scale')).body;
  t.match(scale, { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 5 }, status: { replicas: 4, selector: 'app=x' } });
  const ignored = await c.patch('/apis/stable.example.com/v1/namespaces/default/crontabs/good', { status: { replicas: 9 } }, { contentType: 'application/merge-patch+json' });
  t.equal(ignored.body.status.replicas, 4, 'the main endpoint ignores status');
  const tooMany = await kubectl(['scale', 'crontab/good', '--replicas=11']);
  t.match(tooMany.stderr, /spec.replicas in body should be less than or equal to 10/);
});

t.test("a namespace's deletion removes its custom resources", async (t) => {
  await kubectl.ok(['create', 'namespace', 'doomed']);
  await kubectl.ok(['apply', '-n', 'doomed', '-f', '-'], `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: inside}
spec: {image: x}
`);
  await kubectl.ok(['delete', 'namespace', 'doomed', '--timeout=60s']);
  t.equal((await c.get('/apis/stable.example.com/v1/namespaces/doomed/crontabs/inside')).status, 404);
});

t.test('deleting the CRD deletes its objects, then stops serving', async (t) => {
  await kubectl.ok(['delete', 'crd', 'crontabs.stable.example.com', '--timeout=20s']);
  const gone = await c.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com');
  t.equal(gone.status, 404);
  await eventually(async () => (await c.get('/apis/stable.example.com/v1/namespaces/default/crontabs')).status === 404, 5000, 'serving to stop');
  t.equal((await c.get('/apis/stable.example.com/v1')).status, 404);
  await kubectl.ok(['apply', '-f', '-'], crd);
  await kubectl.ok(['wait', '--for=condition=Established', '--timeout=10s', 'crd/crontabs.stable.example.com']);
  t.equal((await c.get('/apis/stable.example.com/v1/crontabs')).body.items.length, 0, 'created again, none of the old objects are back');
});
