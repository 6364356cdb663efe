// core/v1 environment variables and the sources their values come from.
import { str, bool, obj, defineType, withDefault, pb } from '../../schema.js';
import { quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.EnvFromSource', obj({
  prefix: pb(1, str('Prefix added to each variable name.')),
  configMapRef: pb(2, core('ConfigMapEnvSource')),
  secretRef: pb(3, core('SecretEnvSource')),
}, 'A ConfigMap or Secret whose keys become variables.'));

defineType('io.k8s.api.core.v1.EnvVar', obj({
  name: pb(1, str('Name of the variable.'), 'keepZero'),
  value: pb(2, str('Literal value; $(VAR) references to earlier variables are expanded.')),
  valueFrom: pb(3, core('EnvVarSource', 'Source of the value when not literal.')),
}, 'An environment variable.', { required: ['name'] }));

defineType('io.k8s.api.core.v1.EnvVarSource', obj({
  fieldRef: pb(1, core('ObjectFieldSelector', 'A field of the pod, e.g. metadata.name or status.podIP.')),
  resourceFieldRef: pb(2, core('ResourceFieldSelector', 'A resource request or limit of a container.')),
  configMapKeyRef: pb(3, core('ConfigMapKeySelector', 'A key of a ConfigMap.')),
  secretKeyRef: pb(4, core('SecretKeySelector', 'A key of a Secret.')),
}, 'Where a variable\'s value comes from; exactly one member is set.'));

defineType('io.k8s.api.core.v1.ConfigMapEnvSource', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  optional: pb(2, bool(), 'keepZero'),
}, undefined, { protoEmbeds: { LocalObjectReference: 1 } }));

defineType('io.k8s.api.core.v1.SecretEnvSource', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  optional: pb(2, bool(), 'keepZero'),
}, undefined, { protoEmbeds: { LocalObjectReference: 1 } }));

defineType('io.k8s.api.core.v1.ObjectFieldSelector', obj({
  apiVersion: pb(1, str('Version of the schema fieldPath is written in; default v1.')),
  fieldPath: pb(2, str('Path of the field, e.g. metadata.namespace.'), 'keepZero'),
}, 'Selects a field of the object.', { required: ['fieldPath'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.ResourceFieldSelector', obj({
  containerName: pb(1, str()),
  resource: pb(2, str('e.g. limits.cpu or requests.memory.'), 'keepZero'),
  divisor: pb(3, quantityRef('Unit the value is expressed in; default 1.')),
}, 'Selects a container resource value.', { required: ['resource'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.ConfigMapKeySelector', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  key: pb(2, str('The key to read.'), 'keepZero'),
  optional: pb(3, bool('Whether the ConfigMap or key may be missing.'), 'keepZero'),
}, undefined, { required: ['key'], mapType: 'atomic', protoEmbeds: { LocalObjectReference: 1 } }));

defineType('io.k8s.api.core.v1.SecretKeySelector', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), ''), { in: 'LocalObjectReference' }),
  key: pb(2, str('The key to read.'), 'keepZero'),
  optional: pb(3, bool('Whether the Secret or key may be missing.'), 'keepZero'),
}, undefined, { required: ['key'], mapType: 'atomic', protoEmbeds: { LocalObjectReference: 1 } }));
