// core/v1 object references shared by many types.
import { str, obj, defineType, withDefault } from '../../schema.js';

defineType('io.k8s.api.core.v1.ObjectReference', obj({
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  namespace: str(),
  name: str('Name of the referent.'),
  uid: str(),
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  resourceVersion: str(),
  fieldPath: str(),
}, 'A reference to an object, with as much detail as known.', { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.LocalObjectReference', obj({
  name: withDefault(str('Name of the referent in the same namespace.'), ''),
}, 'A reference to an object in the same namespace, by name.', { mapType: 'atomic' }));
