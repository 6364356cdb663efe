// Shorthands for referring to the apimachinery types every group uses.
import { ref, type RefSchema } from '../../schema.js';

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

export const metaRef = (name: string, description?: string): RefSchema => ref(`${META}.${name}`, description);
export const objectMeta = (description = 'Standard object metadata: name, namespace, labels, annotations, and the fields the server maintains.'): RefSchema =>
  metaRef('ObjectMeta', description);
export const listMeta = (description = 'Standard list metadata: resourceVersion and the continue token for paging.'): RefSchema =>
  metaRef('ListMeta', description);
export const timeRef = (description?: string): RefSchema => metaRef('Time', description);
export const microTimeRef = (description?: string): RefSchema => metaRef('MicroTime', description);
export const labelSelector = (description?: string): RefSchema => metaRef('LabelSelector', description);
export const conditionRef = (description?: string): RefSchema => metaRef('Condition', description);
export const quantityRef = (description?: string): RefSchema => ref(QUANTITY, description);
export const intOrStringRef = (description?: string): RefSchema => ref(INT_OR_STRING, description);
