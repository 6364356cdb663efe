// The DefaultTolerationSeconds admission plugin (upstream plugin/pkg/admission/
// defaulttolerationseconds): a new pod that tolerates neither node.kubernetes.io/not-ready
// nor …/unreachable with NoExecute gets each for 300 seconds, so the node lifecycle
// controller evicts it five minutes after its node goes away.
import type { Fields } from '../../api/object.js';
import { isPodWrite, type AdmissionPlugin } from '../admission.js';

export const DEFAULT_TOLERATION_SECONDS = 300;
const taints = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

export function defaultTolerationSeconds(seconds = DEFAULT_TOLERATION_SECONDS): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    async mutate(a) {
      if (!isPodWrite(a)) return;
      const spec = a.object!.spec ??= {};
      const tolerations = (spec.tolerations ?? []) as Fields[];
      const added = taints.filter((key) => !tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect)));
      if (!added.length) return;
      spec.tolerations = [...tolerations, ...added.map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }))];
    },
  };
}
