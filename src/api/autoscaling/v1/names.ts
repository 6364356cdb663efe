import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.autoscaling.v1 type by its short name. */
export const autoscaling = (name: string, description?: string): RefSchema => ref(`io.k8s.api.autoscaling.v1.${name}`, description);
