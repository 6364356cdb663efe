// core/v1 object references shared by many types.
import { str, obj, defineType, withDefault, pb } from '../../schema.js';

defineType('io.k8s.api.core.v1.ObjectReference', obj({
  kind: pb(1, str('The type of this object in CamelCase, e.g. Deployment.')),
  namespace: pb(2, str()),
  name: pb(3, str('Name of the referent.')),
  uid: pb(4, str()),
  apiVersion: pb(5, str('The versioned schema of this object, e.g. apps/v1; the server converts to it.')),
  resourceVersion: pb(6, str()),
  fieldPath: pb(7, str()),
}, 'A reference to an object, with as much detail as known.', { mapType: 'atomic' }));

defineType('io.k8s.api.core.v1.LocalObjectReference', obj({
  name: pb(1, withDefault(str('Name of the referent in the same namespace.'), '')),
}, 'A reference to an object in the same namespace, by name.', { mapType: 'atomic' }));
