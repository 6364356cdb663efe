// core/v1 scheduling constraints: affinity, tolerations, topology spread.
import { str, int32, int64, obj, arr, defineType } from '../../schema.js';
import { labelSelector } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Affinity', obj({
  nodeAffinity: core('NodeAffinity', 'Node constraints.'),
  podAffinity: core('PodAffinity', 'Co-locate with pods matching these terms.'),
  podAntiAffinity: core('PodAntiAffinity', 'Stay apart from pods matching these terms.'),
}, 'Scheduling constraints relative to nodes and other pods.'));

defineType('io.k8s.api.core.v1.NodeAffinity', obj({
  requiredDuringSchedulingIgnoredDuringExecution: core('NodeSelector'),
  preferredDuringSchedulingIgnoredDuringExecution: arr(core('PreferredSchedulingTerm'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.PodAffinity', obj({
  requiredDuringSchedulingIgnoredDuringExecution: arr(core('PodAffinityTerm'), undefined, { listType: 'atomic' }),
  preferredDuringSchedulingIgnoredDuringExecution: arr(core('WeightedPodAffinityTerm'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.PodAntiAffinity', obj({
  requiredDuringSchedulingIgnoredDuringExecution: arr(core('PodAffinityTerm'), undefined, { listType: 'atomic' }),
  preferredDuringSchedulingIgnoredDuringExecution: arr(core('WeightedPodAffinityTerm'), undefined, { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.NodeSelector', obj({
  nodeSelectorTerms: arr(core('NodeSelectorTerm'), undefined, { listType: 'atomic' }),
}, undefined, { required: ['nodeSelectorTerms'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.NodeSelectorTerm', obj({
  matchExpressions: arr(core('NodeSelectorRequirement'), undefined, { listType: 'atomic' }),
  matchFields: arr(core('NodeSelectorRequirement'), undefined, { listType: 'atomic' }),
}, undefined, { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.NodeSelectorRequirement', obj({
  key: str(),
  operator: str(undefined, { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] }),
  values: arr(str(), undefined, { listType: 'atomic' }),
}, undefined, { required: ['key', 'operator'] }));

defineType('io.k8s.api.core.v1.PreferredSchedulingTerm', obj({
  weight: int32(),
  preference: core('NodeSelectorTerm'),
}, undefined, { required: ['weight', 'preference'] }));

defineType('io.k8s.api.core.v1.PodAffinityTerm', obj({
  labelSelector: labelSelector(),
  namespaces: arr(str(), undefined, { listType: 'atomic' }),
  topologyKey: str(),
  namespaceSelector: labelSelector(),
  matchLabelKeys: arr(str(), undefined, { listType: 'atomic' }),
  mismatchLabelKeys: arr(str(), undefined, { listType: 'atomic' }),
}, undefined, { required: ['topologyKey'] }));

defineType('io.k8s.api.core.v1.WeightedPodAffinityTerm', obj({
  weight: int32(),
  podAffinityTerm: core('PodAffinityTerm'),
}, undefined, { required: ['weight', 'podAffinityTerm'] }));

defineType('io.k8s.api.core.v1.Toleration', obj({
  key: str('Taint key to match; empty with Exists matches all taints.'),
  operator: str('Exists or Equal (default).', { enum: ['Exists', 'Equal'] }),
  value: str('Taint value to match with Equal.'),
  effect: str('Taint effect to match; empty matches all.', { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] }),
  tolerationSeconds: int64('For NoExecute: how long the pod stays after the taint appears.'),
}, 'Lets the pod be scheduled onto (or stay on) nodes with a matching taint.'));

defineType('io.k8s.api.core.v1.TopologySpreadConstraint', obj({
  maxSkew: int32('Largest allowed difference in matching pods between two domains.'),
  topologyKey: str('Node label whose values are the domains.'),
  whenUnsatisfiable: str('DoNotSchedule or ScheduleAnyway.', { enum: ['DoNotSchedule', 'ScheduleAnyway'] }),
  labelSelector: labelSelector('Which pods are counted.'),
  minDomains: int32(),
  nodeAffinityPolicy: str(undefined, { enum: ['Ignore', 'Honor'] }),
  nodeTaintsPolicy: str(undefined, { enum: ['Ignore', 'Honor'] }),
  matchLabelKeys: arr(str(), undefined, { listType: 'atomic' }),
}, 'How matching pods spread across the values of a node label.', { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] }));
