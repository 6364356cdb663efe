// Field management on the real apps/v1 Deployment schema, as kubectl drives it.
import t from 'tap';
import { schemaFor } from '../../src/api/schemas.js';
import { ApplyConflictError, FieldManager } from '../../src/apiserver/fieldmanager/index.js';

const schema = schemaFor('apps', 'v1', 'Deployment')!;
const fm = new FieldManager();
const now = new Date('2024-05-01T10:00:00Z');

const manifest = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }] },
    },
  },
});

t.test('kubectl create (client-side apply) then apply --server-side', async (t) => {
  const created = fm.update(null, manifest(1), { manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1', schema, now }) as any;
  const fields = created.metadata.managedFields[0].fieldsV1;
  t.same(fields['f:spec']['f:selector'], {}, 'the label selector is atomic');
  t.same(fields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:ports'], {
    '.': {},
    'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
  }, 'the port key includes the defaulted protocol');
  t.ok(fields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:env']['k:{"name":"A"}']['f:value']);

  const err = (() => {
    try {
      fm.apply(created, manifest(3), { manager: 'kubectl', apiVersion: 'apps/v1', schema, now, force: false });
    } catch (e) {
      return e;
    }
  })();
  t.ok(err instanceof ApplyConflictError);
  t.equal((err as Error).message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');

  const same = fm.apply(created, manifest(1), { manager: 'kubectl', apiVersion: 'apps/v1', schema, now, force: false });
  t.equal(same.changed, false, 'applying what is there takes shared ownership without conflict');
  t.same(same.object.metadata && (same.object.metadata as any).managedFields.map((e: any) => `${e.manager}/${e.operation}`), [
    'kubectl/Apply',
    'kubectl-client-side-apply/Update',
  ]);
});
