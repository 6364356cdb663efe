import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.apps.v1beta1 type by its short name. */
export const appsV1beta1 = (name: string, description?: string): RefSchema => ref(`io.k8s.api.apps.v1beta1.${name}`, description);
