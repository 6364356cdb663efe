import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.apps.v1 type by its short name. */
export const apps = (name: string, description?: string): RefSchema => ref(`io.k8s.api.apps.v1.${name}`, description);
