import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.batch.v1 type by its short name. */
export const batch = (name: string, description?: string): RefSchema => ref(`io.k8s.api.batch.v1.${name}`, description);
