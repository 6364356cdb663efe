// core/v1 environment variables and the sources their values come from.
import { str, bool, obj, defineType, withDefault } from '../../schema.js';
import { quantityRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.EnvFromSource', obj({
  prefix: str('Prefix added to each variable name.'),
  configMapRef: core('ConfigMapEnvSource'),
  secretRef: core('SecretEnvSource'),
}, 'A ConfigMap or Secret whose keys become variables.'));

defineType('io.k8s.api.core.v1.EnvVar', obj({
  name: str('Name of the variable.'),
  value: str('Literal value; $(VAR) references to earlier variables are expanded.'),
  valueFrom: core('EnvVarSource', 'Source of the value when not literal.'),
}, 'An environment variable.', { required: ['name'] }));

defineType('io.k8s.api.core.v1.EnvVarSource', obj({
  fieldRef: core('ObjectFieldSelector', 'A field of the pod, e.g. metadata.name or status.podIP.'),
  resourceFieldRef: core('ResourceFieldSelector', 'A resource request or limit of a container.'),
  configMapKeyRef: core('ConfigMapKeySelector', 'A key of a ConfigMap.'),
  secretKeyRef: core('SecretKeySelector', 'A key of a Secret.'),
}, 'Where a variable\'s value comes from; exactly one member is set.'));

defineType('io.k8s.api.core.v1.ConfigMapEnvSource', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  optional: bool(),
}));

defineType('io.k8s.api.core.v1.SecretEnvSource', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  optional: bool(),
}));

defineType('io.k8s.api.core.v1.ObjectFieldSelector', obj({
  apiVersion: str('Version of the schema fieldPath is written in; default v1.'),
  fieldPath: str('Path of the field, e.g. metadata.namespace.'),
}, 'Selects a field of the object.', { required: ['fieldPath'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.ResourceFieldSelector', obj({
  containerName: str(),
  resource: str('e.g. limits.cpu or requests.memory.'),
  divisor: quantityRef('Unit the value is expressed in; default 1.'),
}, 'Selects a container resource value.', { required: ['resource'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.ConfigMapKeySelector', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  key: str('The key to read.'),
  optional: bool('Whether the ConfigMap or key may be missing.'),
}, undefined, { required: ['key'], mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.SecretKeySelector', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
  key: str('The key to read.'),
  optional: bool('Whether the Secret or key may be missing.'),
}, undefined, { required: ['key'], mapType: 'atomic' }));
