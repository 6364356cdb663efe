// autoscaling/v1 HorizontalPodAutoscaler: CPU utilisation only (the v2 form is what the
// server keeps; v1 is converted, src/api/autoscaling/conversion.ts). Numbered as upstream's
// generated.proto: kubectl autoscale sends this kind as protobuf.
import { str, int32, int64, obj, arr, defineType, pb } from '../../schema.js';
import { listMeta, objectMeta, timeRef } from '../../meta/v1/names.js';
import { autoscaling } from './names.js';

const kindOf = (kind: string, description: string, props: Parameters<typeof obj>[0], required?: string[]) =>
  defineType(`io.k8s.api.autoscaling.v1.${kind}`, obj({
    apiVersion: str('The versioned schema of this object, e.g. autoscaling/v1; the server converts to it.'),
    kind: str('The type of this object in CamelCase.'),
    ...props,
  }, description, { ...(required ? { required } : {}), gvk: [{ group: 'autoscaling', version: 'v1', kind }] }));

kindOf('HorizontalPodAutoscaler', 'Scales a workload by the average CPU utilisation of its pods.', {
  metadata: pb(1, objectMeta()),
  spec: pb(2, autoscaling('HorizontalPodAutoscalerSpec', 'Desired behaviour of the autoscaler.')),
  status: pb(3, autoscaling('HorizontalPodAutoscalerStatus', 'Current state of the autoscaler.')),
});
kindOf('HorizontalPodAutoscalerList', 'A list of horizontal pod autoscalers.', { metadata: listMeta(), items: arr(autoscaling('HorizontalPodAutoscaler'), 'The objects in the list.') }, ['items']);

defineType('io.k8s.api.autoscaling.v1.CrossVersionObjectReference', obj({
  kind: pb(1, str('Kind of the referent, e.g. Deployment.'), 'keepZero'),
  name: pb(2, str('Name of the referent.'), 'keepZero'),
  apiVersion: pb(3, str('API version of the referent, e.g. apps/v1.')),
}, 'A reference to an object of any version.', { required: ['kind', 'name'] }));

defineType('io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec', obj({
  scaleTargetRef: pb(1, autoscaling('CrossVersionObjectReference', 'The workload to scale (its scale subresource).')),
  minReplicas: pb(2, int32('Lower limit of replicas; default 1.'), 'keepZero'),
  maxReplicas: pb(3, int32('Upper limit of replicas.'), 'keepZero'),
  targetCPUUtilizationPercentage: pb(4, int32('Target average CPU utilisation, percent of the request; default 80.'), 'keepZero'),
}, undefined, { required: ['scaleTargetRef', 'maxReplicas'] }));

defineType('io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerStatus', obj({
  observedGeneration: pb(1, int64('Generation last acted on.'), 'keepZero'),
  lastScaleTime: pb(2, timeRef('When the replicas were last changed.')),
  currentReplicas: pb(3, int32('Replicas last seen.'), 'keepZero'),
  desiredReplicas: pb(4, int32('Replicas last computed.'), 'keepZero'),
  currentCPUUtilizationPercentage: pb(5, int32('Average CPU utilisation last measured, percent of the request.'), 'keepZero'),
}, undefined, { required: ['currentReplicas', 'desiredReplicas'] }));
