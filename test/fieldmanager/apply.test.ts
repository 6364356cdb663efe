import t from 'tap';
import { ApplyConflictError, BEFORE_FIRST_APPLY, FieldManager, FieldManagerError } from '../../src/apiserver/fieldmanager/index.js';
import { deployment, entryOf, schema, T0, T1, T2 } from './fixtures.js';

const fm = new FieldManager();
const opts = (manager: string, now: Date, force = false) => ({ manager, apiVersion: 'apps/v1', schema, now, force });

/** A manifest as a user writes it for `kubectl apply --server-side`. */
const manifest = (spec: Record<string, unknown> = {}, labels: Record<string, string> = { app: 'web' }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } }, ...spec },
});

const appliedByKubectl = () => fm.apply(null, manifest(), opts('kubectl', T0)).object as any;
const caught = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
};

t.test('apply creates: the object is the manifest, owned by one Apply entry', async (t) => {
  const r = fm.apply(null, manifest(), opts('kubectl', T0));
  t.equal(r.changed, true);
  const o = r.object as any;
  t.same(o.spec, manifest().spec);
  t.same(o.metadata.managedFields, [{
    manager: 'kubectl',
    operation: 'Apply',
    apiVersion: 'apps/v1',
    time: '2024-05-01T10:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      },
    },
  }]);
});

t.test('re-applying the same manifest changes nothing, not even the time', async (t) => {
  const live = appliedByKubectl();
  const r = fm.apply(live, manifest(), opts('kubectl', T1));
  t.equal(r.changed, false);
  t.same(r.object, live);
});

t.test('a field changed by an Update manager conflicts', async (t) => {
  const live = appliedByKubectl();
  const scaled = structuredClone(live);
  scaled.spec.replicas = 5;
  const afterScale = fm.update(live, scaled, { manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1', schema, now: T1 });

  const err = caught(() => fm.apply(afterScale, manifest(), opts('kubectl', T2)));
  t.ok(err instanceof ApplyConflictError);
  const conflict = err as ApplyConflictError;
  t.equal(conflict.code, 409);
  t.equal(conflict.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
  t.same(conflict.causes(), [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }]);
  t.same(conflict.conflicts, [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps/v1', field: '.spec.replicas' }]);

  t.test('with force, ownership moves to the applier', async (t) => {
    const o = fm.apply(afterScale, manifest(), opts('kubectl', T2, true)).object as any;
    t.equal(o.spec.replicas, 2);
    t.equal(entryOf(o, 'kubectl-client-side-apply'), undefined, 'the updater owned only replicas: its entry is gone');
    t.ok(entryOf(o, 'kubectl').fieldsV1['f:spec']['f:replicas']);
    t.equal(entryOf(o, 'kubectl').time, '2024-05-01T10:10:00Z');
  });

  t.test('applying the value the other manager set is not a conflict: both own it', async (t) => {
    const o = fm.apply(afterScale, manifest({ replicas: 5 }), opts('kubectl', T2)).object as any;
    t.ok(entryOf(o, 'kubectl').fieldsV1['f:spec']['f:replicas']);
    t.ok(entryOf(o, 'kubectl-client-side-apply').fieldsV1['f:spec']['f:replicas']);
  });
});

t.test('conflicts with several managers are listed per manager', async (t) => {
  const live = appliedByKubectl();
  const a = fm.apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 7 } }, opts('hpa', T1, true)).object;
  const b = structuredClone(a) as any;
  b.spec.template.spec.containers[0].image = 'nginx:1.27';
  b.metadata.labels.app = 'other';
  const c = fm.update(a, b, { manager: 'kubectl-edit', apiVersion: 'apps/v1', schema, now: T1 });
  const err = caught(() => fm.apply(c, manifest(), opts('kubectl', T2))) as ApplyConflictError;
  t.equal(err.message, [
    'Apply failed with 3 conflicts: conflict with "hpa":',
    '- .spec.replicas',
    'conflict with "kubectl-edit" using apps/v1:',
    '- .metadata.labels.app',
    '- .spec.template.spec.containers[name="web"].image',
  ].join('\n'));
});

t.test('fields dropped from the manifest are removed unless someone else owns them', async (t) => {
  const live = fm.apply(null, manifest({}, { app: 'web', tier: 'fe' }), opts('kubectl', T0)).object as any;

  const withoutReplicas = manifest({}, { app: 'web' }) as any;
  delete withoutReplicas.spec.replicas;
  const dropped = fm.apply(live, withoutReplicas, opts('kubectl', T1)).object as any;
  t.same(dropped.metadata.labels, { app: 'web' }, 'label removed');
  t.notOk('replicas' in dropped.spec, 'replicas removed');
  t.notOk(entryOf(dropped, 'kubectl').fieldsV1['f:spec']['f:replicas']);

  const shared = fm.apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { tier: 'fe' } } }, opts('other-applier', T1)).object;
  const kept = fm.apply(shared, manifest({}, { app: 'web' }), opts('kubectl', T2)).object as any;
  t.same(kept.metadata.labels, { app: 'web', tier: 'fe' }, 'a label another applier owns stays');

  const updated = structuredClone(live);
  updated.metadata.labels.tier = 'be';
  const byUpdate = fm.update(live, updated, { manager: 'kubectl-label', apiVersion: 'apps/v1', schema, now: T1 });
  const stays = fm.apply(byUpdate, manifest({}, { app: 'web' }), opts('kubectl', T2)).object as any;
  t.equal(stays.metadata.labels.tier, 'be', 'a label an Update manager changed stays');
});

t.test('two appliers share a list-map by key', async (t) => {
  const withWeb = appliedByKubectl();
  const sidecar = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'envoy', image: 'envoy:1' }] } } } };
  const both = fm.apply(withWeb, sidecar, opts('mesh-injector', T1)).object as any;
  t.same(both.spec.template.spec.containers.map((c: any) => c.name), ['web', 'envoy']);
  t.same(Object.keys(entryOf(both, 'mesh-injector').fieldsV1['f:spec']['f:template']['f:spec']['f:containers']), ['k:{"name":"envoy"}']);

  const reapplied = fm.apply(both, manifest({ template: { spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] } } }), opts('kubectl', T2)).object as any;
  t.same(reapplied.spec.template.spec.containers, [{ name: 'web', image: 'nginx:1.26' }, { name: 'envoy', image: 'envoy:1' }], 'the other applier\'s item is untouched');

  const withdrawn = fm.apply(both, { ...sidecar, spec: { template: { spec: { containers: [] } } } }, opts('mesh-injector', T2)).object as any;
  t.same(withdrawn.spec.template.spec.containers.map((c: any) => c.name), ['web'], 'an applier removing its item removes only that item');
  t.equal(entryOf(withdrawn, 'mesh-injector'), undefined);

  const coOwned = fm.apply(withWeb, manifest(), opts('second', T1)).object;
  const released = fm.apply(coOwned, { ...sidecar, spec: { template: { spec: { containers: [] } } } }, opts('second', T2)).object as any;
  t.same(released.spec.template.spec.containers.map((c: any) => c.name), ['web'], 'an item still applied by another manager stays');
});

t.test('an object that predates field management belongs to before-first-apply', async (t) => {
  const legacy = deployment('nginx:1.25', 1);
  const err = caught(() => fm.apply(legacy, manifest(), opts('kubectl', T1))) as ApplyConflictError;
  t.ok(err instanceof ApplyConflictError);
  t.same(err.conflicts.map((c) => `${c.manager} ${c.field}`), [`${BEFORE_FIRST_APPLY} .spec.replicas`]);
  const o = fm.apply(legacy, manifest(), opts('kubectl', T1, true)).object as any;
  t.ok(entryOf(o, BEFORE_FIRST_APPLY, 'Update').fieldsV1['f:spec']['f:selector'], 'fields the manifest does not mention stay with the placeholder');
});

t.test('fields nobody owns: identity, bookkeeping and status', async (t) => {
  const o = fm.apply(null, {
    ...manifest(),
    metadata: { name: 'web', namespace: 'default', uid: 'u', resourceVersion: '3', generation: 1, labels: { app: 'web' } },
    status: { replicas: 1 },
  }, opts('kubectl', T0)).object as any;
  const fields = entryOf(o, 'kubectl').fieldsV1;
  t.same(Object.keys(fields), ['f:metadata', 'f:spec']);
  t.same(Object.keys(fields['f:metadata']), ['f:labels']);
});

t.test('applied configurations the schema cannot read are FieldManagerErrors (400)', async (t) => {
  const cases: { name: string; config: unknown; message: RegExp }[] = [
    { name: 'not an object', config: [1], message: /must be an object/ },
    { name: 'duplicate keys', config: manifest({ template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } }), message: /duplicate entries for key k:\{"name":"a"\}/ },
    { name: 'item without key', config: manifest({ template: { spec: { containers: [{ image: 'x' }] } } }), message: /omits all key fields/ },
    { name: 'managedFields in the configuration', config: { ...manifest(), metadata: { name: 'web', managedFields: [] } }, message: /metadata.managedFields must be nil/ },
    { name: 'duplicate set items', config: { ...manifest(), metadata: { name: 'web', finalizers: ['a', 'a'] } }, message: /duplicate entries/ },
  ];
  for (const c of cases) {
    const err = caught(() => fm.apply(appliedByKubectl(), c.config, opts('kubectl', T1)));
    t.ok(err instanceof FieldManagerError, c.name);
    t.equal((err as FieldManagerError).code, 400, c.name);
    t.match((err as Error).message, c.message, c.name);
  }
});

t.test('apply to the status subresource owns status only', async (t) => {
  const live = appliedByKubectl();
  const o = fm.apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 9 }, status: { replicas: 2 } }, { ...opts('controller', T1), subresource: 'status' }).object as any;
  t.same(entryOf(o, 'controller'), {
    manager: 'controller', operation: 'Apply', apiVersion: 'apps/v1', time: '2024-05-01T10:05:00Z',
    fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:replicas': {} } }, subresource: 'status',
  });
  t.same(entryOf(o, 'kubectl'), entryOf(live, 'kubectl'), 'a spec change through status takes nothing from the spec owner');
});

t.test('inputs are not mutated', async (t) => {
  const live = appliedByKubectl();
  const liveCopy = structuredClone(live);
  const config = manifest({ replicas: 4 });
  const configCopy = structuredClone(config);
  const o = fm.apply(live, config, opts('kubectl', T1)).object as any;
  t.same(live, liveCopy);
  t.same(config, configCopy);
  o.spec.template.spec.containers[0].image = 'changed';
  t.equal(config.spec.template.spec.containers[0]!.image, 'nginx:1.25');
});
