import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.networking.v1 type by its short name. */
export const networking = (name: string, description?: string): RefSchema => ref(`io.k8s.api.networking.v1.${name}`, description);
