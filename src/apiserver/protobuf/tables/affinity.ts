// k8s.io/api core/v1: PodSpec.affinity.
import { msg, type Messages } from '../schema.js';

const podAffinity = msg({
  1: ['requiredDuringSchedulingIgnoredDuringExecution', '[]PodAffinityTerm'],
  2: ['preferredDuringSchedulingIgnoredDuringExecution', '[]WeightedPodAffinityTerm'],
});

export const affinity: Messages = {
  Affinity: msg({ 1: ['nodeAffinity', '*NodeAffinity'], 2: ['podAffinity', '*PodAffinity'], 3: ['podAntiAffinity', '*PodAntiAffinity'] }),
  NodeAffinity: msg({
    1: ['requiredDuringSchedulingIgnoredDuringExecution', '*NodeSelector'],
    2: ['preferredDuringSchedulingIgnoredDuringExecution', '[]PreferredSchedulingTerm'],
  }),
  NodeSelector: msg({ 1: ['nodeSelectorTerms', '[]NodeSelectorTerm'] }),
  NodeSelectorTerm: msg({ 1: ['matchExpressions', '[]NodeSelectorRequirement'], 2: ['matchFields', '[]NodeSelectorRequirement'] }),
  NodeSelectorRequirement: msg({ 1: ['key', 'string!'], 2: ['operator', 'string!'], 3: ['values', '[]string'] }),
  PreferredSchedulingTerm: msg({ 1: ['weight', 'int32!'], 2: ['preference', 'NodeSelectorTerm'] }),
  PodAffinity: podAffinity,
  PodAntiAffinity: podAffinity,
  PodAffinityTerm: msg({
    1: ['labelSelector', '*LabelSelector'], 2: ['namespaces', '[]string'], 3: ['topologyKey', 'string!'],
    4: ['namespaceSelector', '*LabelSelector'], 5: ['matchLabelKeys', '[]string'], 6: ['mismatchLabelKeys', '[]string'],
  }),
  WeightedPodAffinityTerm: msg({ 1: ['weight', 'int32!'], 2: ['podAffinityTerm', 'PodAffinityTerm'] }),
};
