// The ClusterRole aggregation controller against the in-memory API: an aggregated role gets
// the union of the selected roles' rules (name order, no duplicates), follows their changes
// and removal, and chains (view → edit).
import t, { type Test } from 'tap';
import { FakeClientset, FakeClock, SharedInformerFactory, resources } from '../../src/client/index.js';
import { ClusterRoleAggregationController } from '../../src/controllers/clusterroleaggregation/index.js';
import { controllerContext, queueDriver } from '../helpers/controller-context.js';
import type { ClusterRole } from '../../src/api/kinds.js';

const AGG = 'rbac.authorization.k8s.io/aggregate-to-';
const rule = (resource: string, verbs = ['get']) => ({ apiGroups: [''], resources: [resource], verbs });
const aggregated = (name: string, label: string, labels: Record<string, string> = {}): ClusterRole =>
  ({ metadata: { name, labels }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${AGG}${label}`]: 'true' } }] }, rules: [] });

async function setup(t: Test, seed: ClusterRole[]) {
  const clock = new FakeClock();
  const fake = new FakeClientset(clock);
  fake.seed(resources.clusterroles, ...seed);
  const informers = new SharedInformerFactory(fake, { clock });
  const ctx = controllerContext({ clients: fake, informers, clock });
  const c = new ClusterRoleAggregationController(ctx);
  informers.start();
  t.teardown(async () => { await c.stop(); await informers.stop(); });
  await informers.waitForCacheSync();
  const { drain } = queueDriver(c, fake, clock);
  await drain();
  const rules = (name: string) => fake.get(resources.clusterroles, undefined, name)?.rules;
  return { fake, drain, rules };
}

t.test('union of the selected roles, following changes; chains', async (t) => {
  const { fake, drain, rules } = await setup(t, [
    aggregated('view', 'view', { [`${AGG}edit`]: 'true' }),
    aggregated('edit', 'edit'),
    { metadata: { name: 'b-pods', labels: { [`${AGG}view`]: 'true' } }, rules: [rule('pods'), rule('services')] },
    { metadata: { name: 'a-cms', labels: { [`${AGG}view`]: 'true' } }, rules: [rule('configmaps'), rule('pods')] },
    { metadata: { name: 'unlabelled' }, rules: [rule('secrets')] },
  ]);
  await drain();
  t.strictSame(rules('view'), [rule('configmaps'), rule('pods'), rule('services')], 'name order, duplicates once, unlabelled left out');
  t.strictSame(rules('edit'), rules('view'), 'edit picks up view (labelled aggregate-to-edit)');

  const api = fake.resource(resources.clusterroles);
  await api.update({ ...fake.get(resources.clusterroles, undefined, 'b-pods')!, rules: [rule('pods', ['list'])] });
  await drain();
  t.strictSame(rules('view'), [rule('configmaps'), rule('pods'), rule('pods', ['list'])], 'a source changed');
  await api.delete(undefined, 'a-cms');
  await drain();
  t.strictSame(rules('view'), [rule('pods', ['list'])], 'a source removed');
  t.strictSame(rules('edit'), [rule('pods', ['list'])]);
});
