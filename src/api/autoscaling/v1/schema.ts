// autoscaling/v1 Scale, the body of every scale subresource.
import { str, int32, obj, defineType, pb } from '../../schema.js';
import { objectMeta } from '../../meta/v1/names.js';
import { autoscaling } from './names.js';

defineType('io.k8s.api.autoscaling.v1.Scale', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  spec: pb(2, autoscaling('ScaleSpec', 'Desired scale.')),
  status: pb(3, autoscaling('ScaleStatus', 'Current scale.')),
}, 'The scale subresource of a scalable resource.', { gvk: [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }] }));

defineType('io.k8s.api.autoscaling.v1.ScaleSpec', obj({
  replicas: pb(1, int32('Desired number of instances.'), 'keepZero'),
}));

defineType('io.k8s.api.autoscaling.v1.ScaleStatus', obj({
  replicas: pb(1, int32('Observed number of instances.'), 'keepZero'),
  selector: pb(2, str('Label selector of the pods counted, in query-string form.')),
}, undefined, { required: ['replicas'] }));
import './hpa.js';
