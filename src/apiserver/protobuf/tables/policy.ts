// k8s.io/api policy/v1 and scheduling/v1.
import { msg, type Messages } from '../schema.js';

export const policy: Messages = {
  Eviction: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['deleteOptions', '*DeleteOptions'] }),
  PriorityClass: msg({
    1: ['metadata', 'ObjectMeta'], 2: ['value', 'int32!'], 3: ['globalDefault', 'bool'], 4: ['description', 'string'], 5: ['preemptionPolicy', '*string'],
  }),
};
