import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.coordination.v1 type by its short name. */
export const coordination = (name: string, description?: string): RefSchema => ref(`io.k8s.api.coordination.v1.${name}`, description);
