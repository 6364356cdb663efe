// Custom resources survive an API server restart: the CRDs in the store are served again as
// soon as the new process has loaded them, with their objects.
import t from 'tap';
import { startAPIServerProcess } from '../helpers/apiserver-process.js';
import { APIClient } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';

const p = await startAPIServerProcess(t);
const c = new APIClient(p.port, { ca: p.pki.ca.certPem, cert: p.pki.admin.certPem, key: p.pki.admin.keyPem });
t.teardown(() => c.closeAll());

t.test('a CRD and its objects are served again after a restart', async (t) => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'notes.restart.example.com' },
    spec: { group: 'restart.example.com', scope: 'Namespaced', names: { plural: 'notes', kind: 'Note' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { text: { type: 'string', default: 'empty' } } } } }] },
  };
  t.equal((await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  const notes = '/apis/restart.example.com/v1/namespaces/default/notes';
  await eventually(async () => (await c.get(notes)).status === 200, 5000, 'served');
  t.equal((await c.post(notes, { apiVersion: 'restart.example.com/v1', kind: 'Note', metadata: { name: 'n1' } })).status, 201);
  await p.kill();
  await p.restart();
  await eventually(async () => (await c.get(`${notes}/n1`)).status === 200, 10_000, 'served after the restart');
  t.equal((await c.get(`${notes}/n1`)).body.text, 'empty');
  const got = (await c.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/notes.restart.example.com')).body;
  t.ok(got.status.conditions.some((x: any) => x.type === 'Established' && x.status === 'True'));
});
