// Strategic merge patches as kubectl sends them, on the real apps/v1 Deployment schema.
import t from 'tap';
import { schemaFor } from '../../src/api/schemas.js';
import { applyPatch } from '../../src/apiserver/patch/index.js';

const deployment = schemaFor('apps', 'v1', 'Deployment')!;

const live = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{
          name: 'web',
          image: 'nginx:1.25',
          imagePullPolicy: 'IfNotPresent',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
        }],
        restartPolicy: 'Always',
      },
    },
  },
});

t.test('kubectl apply (client-side) patches on a Deployment', async (t) => {
  const r = applyPatch('strategic', live(), {
    metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}\n' } },
    spec: {
      replicas: 3,
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'web' }],
          containers: [{
            '$setElementOrder/env': [{ name: 'A' }],
            '$setElementOrder/ports': [{ containerPort: 8080 }],
            env: [{ $patch: 'delete', name: 'B' }],
            image: 'nginx:1.27',
            name: 'web',
            ports: [{ containerPort: 8080 }, { $patch: 'delete', containerPort: 80 }],
          }],
        },
      },
    },
  }, deployment) as any;
  const c = r.spec.template.spec.containers[0];
  t.equal(r.spec.replicas, 3);
  t.equal(c.image, 'nginx:1.27');
  t.equal(c.imagePullPolicy, 'IfNotPresent', 'server-defaulted field kept');
  t.same(c.env, [{ name: 'A', value: '1' }]);
  t.same(c.ports, [{ containerPort: 8080 }]);
  t.same(r.metadata.annotations, { 'kubectl.kubernetes.io/last-applied-configuration': '{}\n' });
});

t.test('switching the strategy to Recreate with $retainKeys drops rollingUpdate', async (t) => {
  const r = applyPatch('strategic', live(), { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } }, deployment) as any;
  t.same(r.spec.strategy, { type: 'Recreate' });
});

t.test('kubectl scale and label merge patches', async (t) => {
  const scaled = applyPatch('merge', live(), { spec: { replicas: 3 } }, deployment) as any;
  t.equal(scaled.spec.replicas, 3);
  const labelled = applyPatch('merge', live(), { metadata: { labels: { app: null, tier: 'fe' } } }, deployment) as any;
  t.same(labelled.metadata.labels, { tier: 'fe' });
});
