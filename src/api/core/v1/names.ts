import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.core.v1 type by its short name. */
export const core = (name: string, description?: string): RefSchema => ref(`io.k8s.api.core.v1.${name}`, description);
