// Status conditions as upstream's meta.SetStatusCondition keeps them.
import t from 'tap';
import { findCondition, isTrue, setCondition } from '../../src/operator/index.js';

t.test('setCondition', async (t) => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:05:00Z');
  const first = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'ReplicasNotReady', message: '0/2', observedGeneration: 1 }, t0);
  t.same(first, [{ type: 'Ready', status: 'False', reason: 'ReplicasNotReady', message: '0/2', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  const same = setCondition(first, { type: 'Ready', status: 'False', reason: 'ReplicasNotReady', message: '1/2', observedGeneration: 2 }, t1);
  t.equal(same[0].lastTransitionTime, '2026-01-01T00:00:00Z', 'the status did not change: neither does the transition time');
  t.equal(same[0].message, '1/2');
  t.equal(same[0].observedGeneration, 2);
  t.equal(first[0].message, '0/2', 'the input is not changed');
  const flipped = setCondition(same, { type: 'Ready', status: 'True', reason: 'AllReplicasReady', message: '2/2', observedGeneration: 2 }, t1);
  t.equal(flipped[0].lastTransitionTime, '2026-01-01T00:05:00Z');
  t.ok(isTrue(flipped, 'Ready'));
  const two = setCondition(flipped, { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' }, t1);
  t.equal(two.length, 2, 'one entry per type');
  t.equal(findCondition(two, 'Degraded')?.reason, 'AsExpected');
  t.notOk(isTrue(two, 'Degraded'));
});
