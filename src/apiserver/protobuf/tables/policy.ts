// k8s.io/api policy/v1 and scheduling/v1.
import { msg, type Messages } from '../schema.js';

export const policy: Messages = {
  Eviction: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['deleteOptions', '*DeleteOptions'] }),
  PodDisruptionBudget: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodDisruptionBudgetSpec'], 3: ['status', 'PodDisruptionBudgetStatus'] }),
  PodDisruptionBudgetSpec: msg({
    1: ['minAvailable', '*IntOrString'], 2: ['selector', '*LabelSelector'], 3: ['maxUnavailable', '*IntOrString'], 4: ['unhealthyPodEvictionPolicy', '*string'],
  }),
  PodDisruptionBudgetStatus: msg({
    1: ['observedGeneration', 'int64'], 2: ['disruptedPods', 'map<Time>'], 3: ['disruptionsAllowed', 'int32!'], 4: ['currentHealthy', 'int32!'],
    5: ['desiredHealthy', 'int32!'], 6: ['expectedPods', 'int32!'], 7: ['conditions', '[]Condition'],
  }),
  PriorityClass: msg({
    1: ['metadata', 'ObjectMeta'], 2: ['value', 'int32!'], 3: ['globalDefault', 'bool'], 4: ['description', 'string'], 5: ['preemptionPolicy', '*string'],
  }),
};
