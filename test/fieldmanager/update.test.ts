import t from 'tap';
import { FieldManager } from '../../src/apiserver/fieldmanager/index.js';
import { deployment, entryOf, schema, T0, T1, T2 } from './fixtures.js';

const fm = new FieldManager();
const opts = (manager: string, now: Date, subresource?: string) => ({ manager, apiVersion: 'apps/v1', schema, now, subresource });
const created = () => fm.update(null, deployment(), opts('kubectl-client-side-apply', T0));

t.test('create records every field for the creating manager', async (t) => {
  const o = created() as any;
  t.same(o.metadata.managedFields, [{
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    apiVersion: 'apps/v1',
    time: '2024-05-01T10:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"web"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    },
  }]);
  t.same({ ...o, metadata: { ...o.metadata, managedFields: undefined } }, { ...deployment(), metadata: { ...deployment().metadata, managedFields: undefined } }, 'object otherwise unchanged');
});

t.test('changed fields move to the updating manager', async (t) => {
  const before = created();
  const next = structuredClone(before) as any;
  next.spec.template.spec.containers[0].image = 'nginx:1.27';
  const o = fm.update(before, next, opts('kubectl-edit', T1)) as any;
  const edit = entryOf(o, 'kubectl-edit');
  t.same(edit.fieldsV1, { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:image': {} } } } } } });
  t.equal(edit.time, '2024-05-01T10:05:00Z');
  const csa = entryOf(o, 'kubectl-client-side-apply');
  t.notOk('f:image' in csa.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'], 'previous owner lost the field');
  t.equal(csa.time, '2024-05-01T10:00:00Z', 'previous owner keeps its time');
  t.same(o.metadata.managedFields.map((e: any) => e.manager), ['kubectl-client-side-apply', 'kubectl-edit'], 'sorted by time');
});

t.test('a write that changes nothing leaves managedFields alone', async (t) => {
  const before = created();
  const next = structuredClone(before) as any;
  next.metadata.resourceVersion = '42';
  next.metadata.generation = 2;
  next.metadata.uid = 'u-1';
  const o = fm.update(before, next, opts('kubectl-edit', T1)) as any;
  t.same(o.metadata.managedFields, (before as any).metadata.managedFields);
});

t.test('removed fields leave every manager and empty entries are dropped', async (t) => {
  const before = created();
  const labelled = structuredClone(before) as any;
  labelled.metadata.labels.tier = 'fe';
  const withLabel = fm.update(before, labelled, opts('kubectl-label', T1)) as any;
  t.same(entryOf(withLabel, 'kubectl-label').fieldsV1, { 'f:metadata': { 'f:labels': { 'f:tier': {} } } });

  const unlabelled = structuredClone(withLabel);
  delete unlabelled.metadata.labels.tier;
  delete unlabelled.metadata.labels.app;
  const o = fm.update(withLabel, unlabelled, opts('kubectl-label', T2)) as any;
  t.equal(entryOf(o, 'kubectl-label'), undefined, 'the label manager owned nothing else');
  t.same(entryOf(o, 'kubectl-client-side-apply').fieldsV1['f:metadata'], { 'f:labels': {} }, 'the emptied map stays owned as a whole');
});

t.test('the same manager accumulates fields across writes', async (t) => {
  const before = created();
  const a = structuredClone(before) as any;
  a.spec.replicas = 2;
  const first = fm.update(before, a, opts('kubectl-edit', T1)) as any;
  const b = structuredClone(first);
  b.metadata.annotations = { note: 'x' };
  const o = fm.update(first, b, opts('kubectl-edit', T2)) as any;
  t.same(entryOf(o, 'kubectl-edit').fieldsV1, { 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } }, 'f:spec': { 'f:replicas': {} } });
  t.equal(entryOf(o, 'kubectl-edit').time, '2024-05-01T10:10:00Z');
});

t.test('status writes track status only, under the status subresource', async (t) => {
  const before = created();
  const next = structuredClone(before) as any;
  next.status = { replicas: 1, readyReplicas: 1 };
  next.spec.replicas = 5;
  const o = fm.update(before, next, opts('kube-controller-manager', T1, 'status')) as any;
  t.same(entryOf(o, 'kube-controller-manager'), {
    manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'apps/v1', time: '2024-05-01T10:05:00Z',
    fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:readyReplicas': {}, 'f:replicas': {} } }, subresource: 'status',
  });
  t.ok(entryOf(o, 'kubectl-client-side-apply').fieldsV1['f:spec']['f:replicas'], 'spec ownership untouched by a status write');

  const main = structuredClone(o);
  main.status.readyReplicas = 0;
  const after = fm.update(o, main, opts('kubectl-edit', T2)) as any;
  t.equal(entryOf(after, 'kubectl-edit'), undefined, 'status changes through the main resource are not tracked');
});

t.test('managedFields sent by the client', async (t) => {
  const before = created();
  const replaced = structuredClone(before) as any;
  replaced.metadata.managedFields = [{ manager: 'custom', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
  const o = fm.update(before, replaced, opts('kubectl-edit', T1)) as any;
  t.same(o.metadata.managedFields.map((e: any) => e.manager), ['custom'], 'a non-empty list replaces the stored one');

  const emptied = structuredClone(before) as any;
  emptied.metadata.managedFields = [];
  const kept = fm.update(before, emptied, opts('kubectl-edit', T1)) as any;
  t.same(kept.metadata.managedFields, (before as any).metadata.managedFields, 'an empty list keeps the stored one');

  const onStatus = structuredClone(before) as any;
  onStatus.metadata.managedFields = replaced.metadata.managedFields;
  const s = fm.update(before, onStatus, opts('x', T1, 'status')) as any;
  t.same(s.metadata.managedFields, (before as any).metadata.managedFields, 'subresource writes cannot edit managedFields');
});

t.test('an object the schema cannot describe loses its managedFields instead of failing the write', async (t) => {
  const before = created();
  const bad = structuredClone(before) as any;
  bad.spec.template.spec.containers.push({ image: 'no-name' });
  const o = fm.update(before, bad, opts('kubectl-edit', T1)) as any;
  t.notOk('managedFields' in o.metadata);
  t.same(o.spec, bad.spec);
});

t.test('inputs are not mutated', async (t) => {
  const before = created();
  const beforeCopy = structuredClone(before);
  const next = structuredClone(before) as any;
  next.spec.replicas = 9;
  const nextCopy = structuredClone(next);
  const o = fm.update(before, next, opts('kubectl-edit', T1)) as any;
  t.same(before, beforeCopy);
  t.same(next, nextCopy);
  o.spec.template.spec.containers[0].image = 'changed';
  t.equal(next.spec.template.spec.containers[0].image, 'nginx:1.25');
});

t.test('a manager rewriting only fields it alone owns: its time moves, entries keep their sets and order', async (t) => {
  const withReplicas = (o: any, replicas: number) => ({ ...o, spec: { ...o.spec, replicas } });
  const before = created();
  const afterScale = fm.update(before, withReplicas(before, 5), opts('scaler', T1)) as any;
  // The scaler writes replicas again (a heartbeat-like rewrite), echoing the managedFields it read.
  const o = fm.update(afterScale, withReplicas(afterScale, 6), opts('scaler', T2)) as any;
  t.same(o.metadata.managedFields.map((e: any) => e.manager), ['kubectl-client-side-apply', 'scaler']);
  t.equal(entryOf(o, 'scaler').time, '2024-05-01T10:10:00Z');
  t.same(entryOf(o, 'scaler').fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  t.same(entryOf(o, 'kubectl-client-side-apply'), entryOf(afterScale, 'kubectl-client-side-apply'), 'the other entry is untouched');
  t.equal(o.spec.replicas, 6);
  // The older entry moves up when its manager writes again later, as Kubernetes orders them by time.
  const csaAgain = structuredClone(o);
  csaAgain.spec.template.spec.containers[0].image = 'nginx:1.28';
  const reordered = fm.update(o, csaAgain, opts('kubectl-client-side-apply', new Date(T2.getTime() + 60_000))) as any;
  t.same(reordered.metadata.managedFields.map((e: any) => e.manager), ['scaler', 'kubectl-client-side-apply']);
  // Nothing changed: nothing moves, no time changes.
  const same = fm.update(reordered, structuredClone(reordered), opts('scaler', new Date(T2.getTime() + 120_000))) as any;
  t.same(same.metadata.managedFields, reordered.metadata.managedFields);
  t.not(same.metadata.managedFields, reordered.metadata.managedFields, 'a copy, not the stored entries');
});
