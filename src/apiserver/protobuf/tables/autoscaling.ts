// k8s.io/api autoscaling/v1: the scale subresource.
import { msg, type Messages } from '../schema.js';

export const autoscaling: Messages = {
  Scale: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'ScaleSpec'], 3: ['status', 'ScaleStatus'] }),
  // omitempty upstream, but a scale to zero must reach the handler as replicas: 0, not as nothing.
  ScaleSpec: msg({ 1: ['replicas', 'int32!'] }),
  ScaleStatus: msg({ 1: ['replicas', 'int32!'], 2: ['selector', 'string'] }),
};
