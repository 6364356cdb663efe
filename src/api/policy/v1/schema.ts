// policy/v1: PodDisruptionBudget, and Eviction (the body of the pods/eviction subresource).
import { str, int32, int64, obj, arr, map, defineType, ref, pb } from '../../schema.js';
import { conditionRef, intOrStringRef, labelSelector, listMeta, metaRef, objectMeta, timeRef } from '../../meta/v1/names.js';

const policy = (name: string, description?: string) => ref(`io.k8s.api.policy.v1.${name}`, description);
const gvk = (kind: string) => [{ group: 'policy', version: 'v1', kind }];
const typeMeta = {
  apiVersion: str('The versioned schema of this object, e.g. policy/v1.'),
  kind: str('The type of this object in CamelCase, e.g. PodDisruptionBudget.'),
};

defineType('io.k8s.api.policy.v1.Eviction', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta('The pod to evict: its name and namespace.')),
  deleteOptions: pb(2, metaRef('DeleteOptions', 'How the pod is deleted.')),
}, 'Evicts a pod, subject to its disruption budgets (POST pods/NAME/eviction).', { gvk: gvk('Eviction') }));

defineType('io.k8s.api.policy.v1.PodDisruptionBudget', obj({
  ...typeMeta,
  metadata: pb(1, objectMeta()),
  spec: pb(2, policy('PodDisruptionBudgetSpec', 'The pods and how many of them must stay available.')),
  status: pb(3, policy('PodDisruptionBudgetStatus', 'How many disruptions are allowed now.')),
}, 'Limits how many pods of a set voluntary disruptions (evictions) may take down at once.', { gvk: gvk('PodDisruptionBudget') }));

defineType('io.k8s.api.policy.v1.PodDisruptionBudgetList', obj({
  ...typeMeta,
  metadata: listMeta(),
  items: arr(policy('PodDisruptionBudget'), 'The objects in the list.'),
}, 'A list of PodDisruptionBudgets.', { required: ['items'], gvk: gvk('PodDisruptionBudgetList') }));

defineType('io.k8s.api.policy.v1.PodDisruptionBudgetSpec', obj({
  minAvailable: pb(1, intOrStringRef('Pods that must stay available after an eviction: a number or a percentage.'), 'keepZero'),
  selector: pb(2, labelSelector('The pods the budget covers; an empty selector selects all in the namespace.')),
  maxUnavailable: pb(3, intOrStringRef('Pods that may be unavailable after an eviction; excludes minAvailable.'), 'keepZero'),
  unhealthyPodEvictionPolicy: pb(4, str('When a not-ready pod may be evicted: IfHealthyBudget (default) or AlwaysAllow.', { enum: ['IfHealthyBudget', 'AlwaysAllow'] }), 'keepZero'),
}, 'The pods a budget covers and what must stay available.'));

defineType('io.k8s.api.policy.v1.PodDisruptionBudgetStatus', obj({
  observedGeneration: pb(1, int64('The generation this status was computed for.')),
  disruptedPods: pb(2, map(timeRef(), 'Pods whose eviction was allowed but not yet seen, with when it was allowed.')),
  disruptionsAllowed: pb(3, int32('How many pods may be disrupted now.'), 'keepZero'),
  currentHealthy: pb(4, int32('Healthy pods now.'), 'keepZero'),
  desiredHealthy: pb(5, int32('Healthy pods the budget requires.'), 'keepZero'),
  expectedPods: pb(6, int32('Pods the budget counts.'), 'keepZero'),
  conditions: pb(7, arr(conditionRef(), 'DisruptionAllowed and the like.', { patchMergeKey: 'type', patchStrategy: 'merge', listType: 'map', listMapKeys: ['type'] })),
}, 'What a disruption budget observes.', { required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] }));
