// core/v1 scheduling constraints: affinity, tolerations, topology spread.
import { str, int32, int64, obj, arr, defineType, pb } from '../../schema.js';
import { labelSelector } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Affinity', obj({
  nodeAffinity: pb(1, core('NodeAffinity', 'Node constraints.')),
  podAffinity: pb(2, core('PodAffinity', 'Co-locate with pods matching these terms.')),
  podAntiAffinity: pb(3, core('PodAntiAffinity', 'Stay apart from pods matching these terms.')),
}, 'Scheduling constraints relative to nodes and other pods.'));

defineType('io.k8s.api.core.v1.NodeAffinity', obj({
  requiredDuringSchedulingIgnoredDuringExecution: pb(1, core('NodeSelector')),
  preferredDuringSchedulingIgnoredDuringExecution: pb(2, arr(core('PreferredSchedulingTerm'), undefined, { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.PodAffinity', obj({
  requiredDuringSchedulingIgnoredDuringExecution: pb(1, arr(core('PodAffinityTerm'), undefined, { listType: 'atomic' })),
  preferredDuringSchedulingIgnoredDuringExecution: pb(2, arr(core('WeightedPodAffinityTerm'), undefined, { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.PodAntiAffinity', obj({
  requiredDuringSchedulingIgnoredDuringExecution: pb(1, arr(core('PodAffinityTerm'), undefined, { listType: 'atomic' })),
  preferredDuringSchedulingIgnoredDuringExecution: pb(2, arr(core('WeightedPodAffinityTerm'), undefined, { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.NodeSelector', obj({
  nodeSelectorTerms: pb(1, arr(core('NodeSelectorTerm'), undefined, { listType: 'atomic' })),
}, undefined, { required: ['nodeSelectorTerms'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.NodeSelectorTerm', obj({
  matchExpressions: pb(1, arr(core('NodeSelectorRequirement'), undefined, { listType: 'atomic' })),
  matchFields: pb(2, arr(core('NodeSelectorRequirement'), undefined, { listType: 'atomic' })),
}, undefined, { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.NodeSelectorRequirement', obj({
  key: pb(1, str(), 'keepZero'),
  operator: pb(2, str(undefined, { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] }), 'keepZero'),
  values: pb(3, arr(str(), undefined, { listType: 'atomic' })),
}, undefined, { required: ['key', 'operator'] }));

defineType('io.k8s.api.core.v1.PreferredSchedulingTerm', obj({
  weight: pb(1, int32(), 'keepZero'),
  preference: pb(2, core('NodeSelectorTerm')),
}, undefined, { required: ['weight', 'preference'] }));

defineType('io.k8s.api.core.v1.PodAffinityTerm', obj({
  labelSelector: pb(1, labelSelector()),
  namespaces: pb(2, arr(str(), undefined, { listType: 'atomic' })),
  topologyKey: pb(3, str(), 'keepZero'),
  namespaceSelector: pb(4, labelSelector()),
  matchLabelKeys: pb(5, arr(str(), undefined, { listType: 'atomic' })),
  mismatchLabelKeys: pb(6, arr(str(), undefined, { listType: 'atomic' })),
}, undefined, { required: ['topologyKey'] }));

defineType('io.k8s.api.core.v1.WeightedPodAffinityTerm', obj({
  weight: pb(1, int32(), 'keepZero'),
  podAffinityTerm: pb(2, core('PodAffinityTerm')),
}, undefined, { required: ['weight', 'podAffinityTerm'] }));

defineType('io.k8s.api.core.v1.Toleration', obj({
  key: pb(1, str('Taint key to match; empty with Exists matches all taints.')),
  operator: pb(2, str('Exists or Equal (default).', { enum: ['Exists', 'Equal'] })),
  value: pb(3, str('Taint value to match with Equal.')),
  effect: pb(4, str('Taint effect to match; empty matches all.', { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] })),
  tolerationSeconds: pb(5, int64('For NoExecute: how long the pod stays after the taint appears.'), 'keepZero'),
}, 'Lets the pod be scheduled onto (or stay on) nodes with a matching taint.'));

defineType('io.k8s.api.core.v1.TopologySpreadConstraint', obj({
  maxSkew: pb(1, int32('Largest allowed difference in matching pods between two domains.'), 'keepZero'),
  topologyKey: pb(2, str('Node label whose values are the domains.'), 'keepZero'),
  whenUnsatisfiable: pb(3, str('DoNotSchedule or ScheduleAnyway.', { enum: ['DoNotSchedule', 'ScheduleAnyway'] }), 'keepZero'),
  labelSelector: pb(4, labelSelector('Which pods are counted.')),
  minDomains: pb(5, int32(), 'keepZero'),
  nodeAffinityPolicy: pb(6, str(undefined, { enum: ['Ignore', 'Honor'] }), 'keepZero'),
  nodeTaintsPolicy: pb(7, str(undefined, { enum: ['Ignore', 'Honor'] }), 'keepZero'),
  matchLabelKeys: pb(8, arr(str(), undefined, { listType: 'atomic' })),
}, 'How matching pods spread across the values of a node label.', { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] }));
