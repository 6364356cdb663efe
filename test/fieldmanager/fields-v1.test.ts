import t from 'tap';
import { FieldSet } from '../../src/apiserver/fieldmanager/field-set.js';
import { displayPath } from '../../src/apiserver/fieldmanager/path-element.js';
import { FieldManager } from '../../src/apiserver/fieldmanager/index.js';
import { deployment, entryOf, schema, T0, T1 } from './fixtures.js';

// A managedFields entry as a Kubernetes API server writes it for `kubectl create deployment`.
const fromKubernetes = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:image': {},
            'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
          },
        },
      },
    },
  },
};

t.test('FieldsV1 parses and writes back unchanged', async (t) => {
  const set = FieldSet.fromFieldsV1(fromKubernetes);
  t.same(set.toFieldsV1(), fromKubernetes);
  t.same(JSON.stringify(set.toFieldsV1()), JSON.stringify(fromKubernetes), 'key order included');
  t.ok(set.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}']), 'a "." entry makes the node a member');
  t.notOk(set.has(['f:spec', 'f:template']), 'a node with children only is not');
});

t.test('malformed FieldsV1 is rejected', async (t) => {
  for (const bad of [[], { 'x:y': {} }, { 'f:a': 1 }, { 'k:[1]': {} }, { 'i:01': {} }, { 'v:{': {} }]) {
    t.throws(() => FieldSet.fromFieldsV1(bad), JSON.stringify(bad));
  }
});

t.test('paths print as Kubernetes prints them in conflicts', async (t) => {
  const cases: [string[], string][] = [
    [['f:spec', 'f:replicas'], '.spec.replicas'],
    [['f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image'], '.spec.containers[name="web"].image'],
    [['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'], '.ports[containerPort=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"a"'], '.metadata.finalizers[="a"]'],
    [['f:list', 'i:3'], '.list[3]'],
  ];
  for (const [path, want] of cases) t.equal(displayPath(path), want);
});

t.test('set items are owned by value; key values escape like Go', async (t) => {
  const fm = new FieldManager();
  const o = deployment();
  (o.metadata as any).finalizers = ['example.com/a<b>'];
  const created = fm.update(null, o, { manager: 'm', apiVersion: 'apps/v1', schema, now: T0 }) as any;
  t.same(entryOf(created, 'm').fieldsV1['f:metadata']['f:finalizers'], { '.': {}, 'v:"example.com/a\\u003cb\\u003e"': {} });

  const next = structuredClone(created);
  next.metadata.finalizers = [];
  const cleared = fm.update(created, next, { manager: 'gc', apiVersion: 'apps/v1', schema, now: T1 }) as any;
  t.same(entryOf(cleared, 'm').fieldsV1['f:metadata']['f:finalizers'], {}, 'the emptied list stays owned as a whole');
  t.equal(entryOf(cleared, 'gc'), undefined, 'removing takes no ownership');
});
