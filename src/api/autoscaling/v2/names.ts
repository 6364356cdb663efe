import { ref, type RefSchema } from '../../schema.js';

/** A reference to a io.k8s.api.autoscaling.v2 type by its short name. */
export const autoscalingV2 = (name: string, description?: string): RefSchema => ref(`io.k8s.api.autoscaling.v2.${name}`, description);
