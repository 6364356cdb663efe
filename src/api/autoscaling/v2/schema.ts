// autoscaling/v2 HorizontalPodAutoscaler, with the fields of k8s.io/api at v1.32. The three
// top-level types carry no protobuf numbers: the decoder keys messages by short name, and
// autoscaling/v1's HorizontalPodAutoscaler{,Spec,Status} (which kubectl autoscale sends as
// protobuf) hold those names. A v2 protobuf body is therefore not decoded (src/api/DESIGN.md).
import { str, int32, int64, obj, arr, defineType, pb, keyedList } from '../../schema.js';
import { labelSelector, listMeta, objectMeta, quantityRef, timeRef } from '../../meta/v1/names.js';
import { autoscalingV2 as v2 } from './names.js';

const kindOf = (kind: string, description: string, props: Parameters<typeof obj>[0], required?: string[]) =>
  defineType(`io.k8s.api.autoscaling.v2.${kind}`, obj({
    apiVersion: str('The versioned schema of this object, e.g. autoscaling/v2; the server converts to it.'),
    kind: str('The type of this object in CamelCase.'),
    ...props,
  }, description, { ...(required ? { required } : {}), gvk: [{ group: 'autoscaling', version: 'v2', kind }] }));

kindOf('HorizontalPodAutoscaler', 'Scales a workload through its scale subresource by the metrics it names.', {
  metadata: objectMeta(),
  spec: v2('HorizontalPodAutoscalerSpec', 'Desired behaviour of the autoscaler.'),
  status: v2('HorizontalPodAutoscalerStatus', 'Current state of the autoscaler.'),
});
kindOf('HorizontalPodAutoscalerList', 'A list of horizontal pod autoscalers.', { metadata: listMeta(), items: arr(v2('HorizontalPodAutoscaler'), 'The objects in the list.') }, ['items']);

defineType('io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec', obj({
  scaleTargetRef: v2('CrossVersionObjectReference', 'The workload to scale (its scale subresource).'),
  minReplicas: int32('Lower limit of replicas; default 1.'),
  maxReplicas: int32('Upper limit of replicas.'),
  metrics: arr(v2('MetricSpec'), 'Metrics to scale by (the largest proposal wins); default 80% average CPU utilisation.', { listType: 'atomic' }),
  behavior: v2('HorizontalPodAutoscalerBehavior', 'Scaling rules up and down.'),
}, undefined, { required: ['scaleTargetRef', 'maxReplicas'] }));

defineType('io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus', obj({
  observedGeneration: int64('Generation last acted on.'),
  lastScaleTime: timeRef('When the replicas were last changed.'),
  currentReplicas: int32('Replicas last seen.'),
  desiredReplicas: int32('Replicas last computed.'),
  currentMetrics: arr(v2('MetricStatus'), 'Metrics last read.', { listType: 'atomic' }),
  conditions: keyedList(v2('HorizontalPodAutoscalerCondition'), 'type', 'AbleToScale, ScalingActive, ScalingLimited.'),
}, undefined, { required: ['desiredReplicas'] }));

defineType('io.k8s.api.autoscaling.v2.CrossVersionObjectReference', obj({
  kind: pb(1, str('Kind of the referent, e.g. Deployment.'), 'keepZero'),
  name: pb(2, str('Name of the referent.'), 'keepZero'),
  apiVersion: pb(3, str('API version of the referent, e.g. apps/v1.')),
}, 'A reference to an object of any version.', { required: ['kind', 'name'] }));

defineType('io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior', obj({
  scaleUp: pb(1, v2('HPAScalingRules', 'Rules for scaling up; default the higher of 4 pods or 100% per 15 s, no stabilisation.')),
  scaleDown: pb(2, v2('HPAScalingRules', 'Rules for scaling down; default 100% per 15 s after a 300 s stabilisation window.')),
}));

defineType('io.k8s.api.autoscaling.v2.HPAScalingRules', obj({
  stabilizationWindowSeconds: pb(3, int32('Seconds of past recommendations considered (0–3600).'), 'keepZero'),
  selectPolicy: pb(1, str('Max (default), Min or Disabled.')),
  policies: pb(2, arr(v2('HPAScalingPolicy'), 'Limits on the change per period.', { listType: 'atomic' })),
  tolerance: pb(4, quantityRef('Tolerance on the metric ratio (HPAConfigurableTolerance); default the cluster\'s 10%.')),
}));

defineType('io.k8s.api.autoscaling.v2.HPAScalingPolicy', obj({
  type: pb(1, str('Pods or Percent.'), 'keepZero'),
  value: pb(2, int32('Change allowed per period (> 0).'), 'keepZero'),
  periodSeconds: pb(3, int32('Period the policy holds over (1–1800 s).'), 'keepZero'),
}, undefined, { required: ['type', 'value', 'periodSeconds'] }));

defineType('io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition', obj({
  type: pb(1, str('AbleToScale, ScalingActive or ScalingLimited.'), 'keepZero'),
  status: pb(2, str('True, False or Unknown.'), 'keepZero'),
  lastTransitionTime: pb(3, timeRef('When the status last changed.')),
  reason: pb(4, str('CamelCase reason for the last transition.')),
  message: pb(5, str('Human-readable detail.')),
}, undefined, { required: ['type', 'status'] }));

defineType('io.k8s.api.autoscaling.v2.MetricSpec', obj({
  type: pb(1, str('ContainerResource, External, Object, Pods or Resource.'), 'keepZero'),
  object: pb(2, v2('ObjectMetricSource')),
  pods: pb(3, v2('PodsMetricSource')),
  resource: pb(4, v2('ResourceMetricSource')),
  containerResource: pb(7, v2('ContainerResourceMetricSource')),
  external: pb(5, v2('ExternalMetricSource')),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.autoscaling.v2.MetricStatus', obj({
  type: pb(1, str('ContainerResource, External, Object, Pods or Resource.'), 'keepZero'),
  object: pb(2, v2('ObjectMetricStatus')),
  pods: pb(3, v2('PodsMetricStatus')),
  resource: pb(4, v2('ResourceMetricStatus')),
  containerResource: pb(7, v2('ContainerResourceMetricStatus')),
  external: pb(5, v2('ExternalMetricStatus')),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.autoscaling.v2.MetricTarget', obj({
  type: pb(1, str('Utilization, Value or AverageValue.'), 'keepZero'),
  value: pb(2, quantityRef()),
  averageValue: pb(3, quantityRef()),
  averageUtilization: pb(4, int32('Percent of the pods\' requests.'), 'keepZero'),
}, undefined, { required: ['type'] }));

defineType('io.k8s.api.autoscaling.v2.MetricValueStatus', obj({
  value: pb(1, quantityRef()),
  averageValue: pb(2, quantityRef()),
  averageUtilization: pb(3, int32('Percent of the pods\' requests.'), 'keepZero'),
}));

defineType('io.k8s.api.autoscaling.v2.MetricIdentifier', obj({
  name: pb(1, str('Name of the metric.'), 'keepZero'),
  selector: pb(2, labelSelector()),
}, undefined, { required: ['name'] }));

defineType('io.k8s.api.autoscaling.v2.ResourceMetricSource', obj({
  name: pb(1, str('cpu or memory.'), 'keepZero'),
  target: pb(2, v2('MetricTarget')),
}, undefined, { required: ['name', 'target'] }));
defineType('io.k8s.api.autoscaling.v2.ResourceMetricStatus', obj({
  name: pb(1, str('cpu or memory.'), 'keepZero'),
  current: pb(2, v2('MetricValueStatus')),
}, undefined, { required: ['name', 'current'] }));
defineType('io.k8s.api.autoscaling.v2.ContainerResourceMetricSource', obj({
  name: pb(1, str('cpu or memory.'), 'keepZero'),
  target: pb(2, v2('MetricTarget')),
  container: pb(3, str('Container name in the target\'s pods.'), 'keepZero'),
}, undefined, { required: ['name', 'target', 'container'] }));
defineType('io.k8s.api.autoscaling.v2.ContainerResourceMetricStatus', obj({
  name: pb(1, str('cpu or memory.'), 'keepZero'),
  current: pb(2, v2('MetricValueStatus')),
  container: pb(3, str('Container name.'), 'keepZero'),
}, undefined, { required: ['name', 'current', 'container'] }));
defineType('io.k8s.api.autoscaling.v2.PodsMetricSource', obj({
  metric: pb(1, v2('MetricIdentifier')),
  target: pb(2, v2('MetricTarget')),
}, undefined, { required: ['metric', 'target'] }));
defineType('io.k8s.api.autoscaling.v2.PodsMetricStatus', obj({
  metric: pb(1, v2('MetricIdentifier')),
  current: pb(2, v2('MetricValueStatus')),
}, undefined, { required: ['metric', 'current'] }));
defineType('io.k8s.api.autoscaling.v2.ObjectMetricSource', obj({
  describedObject: pb(1, v2('CrossVersionObjectReference')),
  target: pb(2, v2('MetricTarget')),
  metric: pb(3, v2('MetricIdentifier')),
}, undefined, { required: ['describedObject', 'target', 'metric'] }));
defineType('io.k8s.api.autoscaling.v2.ObjectMetricStatus', obj({
  metric: pb(1, v2('MetricIdentifier')),
  current: pb(2, v2('MetricValueStatus')),
  describedObject: pb(3, v2('CrossVersionObjectReference')),
}, undefined, { required: ['metric', 'current', 'describedObject'] }));
defineType('io.k8s.api.autoscaling.v2.ExternalMetricSource', obj({
  metric: pb(1, v2('MetricIdentifier')),
  target: pb(2, v2('MetricTarget')),
}, undefined, { required: ['metric', 'target'] }));
defineType('io.k8s.api.autoscaling.v2.ExternalMetricStatus', obj({
  metric: pb(1, v2('MetricIdentifier')),
  current: pb(2, v2('MetricValueStatus')),
}, undefined, { required: ['metric', 'current'] }));
