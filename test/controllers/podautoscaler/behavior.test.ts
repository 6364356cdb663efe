// Stabilisation and scaling policies on a driven clock, after upstream's horizontal_test.go
// behaviour cases: the default 300 s scale-down window, the default scale-up limit
// max(2×, 4), behavior policies (Pods/Percent, periods, selectPolicy) counting past scale
// events, and the reasons the conditions report.
import t from 'tap';
import { FakeClock } from '../../../src/util/clock.js';
import { ScalingHistory, type Behavior } from '../../../src/controllers/podautoscaler/behavior.js';

t.test('without behavior: scale-down waits for the 300 s window, scale-up limited to max(2x, 4)', async (t) => {
  const clock = new FakeClock();
  const h = new ScalingHistory(() => clock.now());
  const key = 'default/web';
  let r = h.normalize(key, 2, 10, 1, 20);
  t.match(r, { replicas: 4, limited: true, limitReason: 'ScaleUpLimit', ableReason: 'ReadyForNewScale' }, 'max(2*2, 4) = 4');
  r = h.normalize(key, 4, 10, 1, 20);
  t.match(r, { replicas: 8, limitReason: 'ScaleUpLimit' });
  r = h.normalize(key, 8, 10, 1, 9);
  t.match(r, { replicas: 9, limitReason: 'TooManyReplicas', limitMessage: 'the desired replica count is more than the maximum replica count' });
  clock.step(60_000);
  r = h.normalize(key, 9, 2, 1, 9);
  t.match(r, { replicas: 9, ableReason: 'ScaleDownStabilized', ableMessage: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
  clock.step(241_000);
  r = h.normalize(key, 9, 2, 1, 9);
  t.match(r, { replicas: 2, ableReason: 'ReadyForNewScale' }, 'the 10s are older than 300 s; the 2 from a minute ago is the highest left');
  clock.step(301_000);
  r = h.normalize(key, 2, 0, 1, 9);
  t.match(r, { replicas: 1, limited: true, limitReason: 'TooFewReplicas', limitMessage: 'the desired replica count is less than the minimum replica count' });
});

t.test('behavior: a Pods policy per period counts the scale events inside it', async (t) => {
  const clock = new FakeClock();
  const h = new ScalingHistory(() => clock.now());
  const key = 'default/web';
  const behavior: Behavior = { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } };
  let r = h.normalizeWithBehavior(key, behavior, 1, 10, 1, 10);
  t.match(r, { replicas: 3, limitReason: 'ScaleUpLimit', limitMessage: 'the desired replica count is increasing faster than the maximum scale rate' });
  h.recordScale(key, behavior, 1, 3);
  clock.step(30_000);
  r = h.normalizeWithBehavior(key, behavior, 3, 10, 1, 10);
  t.match(r, { replicas: 3 }, 'the 2 pods added 30 s ago used up this period');
  clock.step(31_000);
  r = h.normalizeWithBehavior(key, behavior, 3, 10, 1, 10);
  t.match(r, { replicas: 5 }, 'a new period');
});

t.test('behavior: selectPolicy Max takes the larger change, Min the smaller, Disabled none', async (t) => {
  const clock = new FakeClock();
  const policies = [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }];
  const run = (selectPolicy: string, current: number) =>
    new ScalingHistory(() => clock.now()).normalizeWithBehavior('k', { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy, policies } }, current, 100, 1, 100).replicas;
  t.equal(run('Max', 10), 20, '100% of 10 beats +4');
  t.equal(run('Min', 10), 14, '+4 is the smaller change');
  t.equal(run('Max', 2), 6, '+4 beats 100% of 2');
  t.equal(run('Disabled', 10), 10);
});

t.test('behavior: scale-down by Percent with its stabilisation window', async (t) => {
  const clock = new FakeClock();
  const h = new ScalingHistory(() => clock.now());
  const behavior: Behavior = { scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 50, periodSeconds: 30 }] } };
  let r = h.normalizeWithBehavior('k', behavior, 10, 10, 1, 20);
  t.match(r, { replicas: 10, ableReason: 'ReadyForNewScale', limitReason: 'DesiredWithinRange' });
  clock.step(30_000);
  r = h.normalizeWithBehavior('k', behavior, 10, 1, 1, 20);
  t.match(r, { replicas: 10, ableReason: 'ScaleDownStabilized' }, 'the 10 of 30 s ago is inside the 60 s window');
  clock.step(31_000);
  r = h.normalizeWithBehavior('k', behavior, 10, 1, 1, 20);
  t.match(r, { replicas: 5, limited: true, limitReason: 'ScaleDownLimit', limitMessage: 'the desired replica count is decreasing faster than the maximum scale rate' }, '50% per 30 s');
  h.recordScale('k', behavior, 10, 5);
  clock.step(10_000);
  r = h.normalizeWithBehavior('k', behavior, 5, 1, 1, 20);
  t.match(r, { replicas: 5 }, 'the period began at 10 replicas and 50% are gone already');
  clock.step(21_000);
  r = h.normalizeWithBehavior('k', behavior, 5, 1, 1, 20);
  t.match(r, { replicas: 2 }, 'a new period: 50% of 5, truncated');
});

t.test('behavior: scale-up stabilisation applies the lowest recent recommendation', async (t) => {
  const clock = new FakeClock();
  const h = new ScalingHistory(() => clock.now());
  const behavior: Behavior = { scaleUp: { stabilizationWindowSeconds: 120, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 100, periodSeconds: 15 }] } };
  h.normalizeWithBehavior('k', behavior, 2, 2, 1, 20);
  clock.step(10_000);
  const r = h.normalizeWithBehavior('k', behavior, 2, 8, 1, 20);
  t.match(r, { replicas: 2, ableReason: 'ScaleUpStabilized', ableMessage: 'recent recommendations were lower than current one, applying the lowest recent recommendation' });
});
