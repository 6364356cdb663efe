// Printer-column paths as CRD authors write them (cert-manager, Crossplane, Argo and others
// use filters on conditions).
import t from 'tap';
import { compileColumnPath, findAll, firstMatch } from '../../src/api/apiextensions/column-path.js';

const obj = {
  metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: { containers: [{ name: 'one', image: 'i1', port: 80 }, { name: 'two', image: 'i2', port: 8080 }] },
  status: {
    conditions: [
      { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' },
      { type: 'Ready', status: 'False', reason: 'Unavailable' },
    ],
  },
};

const at = (path: string): unknown => {
  const steps = compileColumnPath(path);
  if (!steps) throw new Error(`did not parse: ${path}`);
  return firstMatch(obj, steps);
};
const all = (path: string): unknown[] => findAll(obj, compileColumnPath(path)!);

t.test('filters on conditions', async (t) => {
  t.equal(at('.status.conditions[?(@.type=="Ready")].status'), 'False');
  t.equal(at(".status.conditions[?(@.type=='Synced')].reason"), 'ReconcileSuccess');
  t.equal(at('.status.conditions[?(@.type!="Synced")].type'), 'Ready');
  t.equal(at('.status.conditions[?(@.type=="Missing")].status'), undefined);
  t.same(all('.spec.containers[?(@.port>100)].name'), ['two']);
  t.same(all('.spec.containers[?(@.image)].name'), ['one', 'two']);
});

t.test('fields, indexes, slices, wildcards and descent', async (t) => {
  t.equal(at('.metadata.name'), 'a');
  t.equal(at(".metadata.labels['app.kubernetes.io/name']"), 'web');
  t.equal(at('.spec.containers[-1].name'), 'two');
  t.same(all('.spec.containers[*].image'), ['i1', 'i2']);
  t.same(all('.spec.containers[0:1].name'), ['one']);
  t.same(all('..image'), ['i1', 'i2']);
  t.same(all('{.spec.containers[*].port}'), [80, 8080]);
});

t.test('paths that do not parse', async (t) => {
  for (const bad of ['.spec[', '.status.conditions[?(@.type=)]', 'spec name', '.a[?(type=="x")]']) {
    t.equal(compileColumnPath(bad), null, bad);
  }
});
