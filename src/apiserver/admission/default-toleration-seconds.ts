// The DefaultTolerationSeconds admission plugin (upstream plugin/pkg/admission/
// defaulttolerationseconds): a new pod that tolerates neither node.kubernetes.io/not-ready
// nor …/unreachable with NoExecute gets each for 300 seconds (the two flags), so the node
// lifecycle controller evicts it five minutes after its node goes away.
import type { Fields } from '../../api/object.js';
import { isPodWrite, type AdmissionPlugin } from '../admission.js';

export const DEFAULT_TOLERATION_SECONDS = 300;
const taints = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/** kube-apiserver's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export interface TolerationSeconds { notReady: number; unreachable: number }

export function defaultTolerationSeconds(seconds: Partial<TolerationSeconds> = {}): AdmissionPlugin {
  const forTaint: Record<string, number> = {
    [taints[0]]: seconds.notReady ?? DEFAULT_TOLERATION_SECONDS,
    [taints[1]]: seconds.unreachable ?? DEFAULT_TOLERATION_SECONDS,
  };
  return {
    name: 'DefaultTolerationSeconds',
    async mutate(a) {
      if (!isPodWrite(a)) return;
      const spec = a.object!.spec ??= {};
      const tolerations = (spec.tolerations ?? []) as Fields[];
      const added = taints.filter((key) => !tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect)));
      if (!added.length) return;
      spec.tolerations = [...tolerations, ...added.map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: forTaint[key] }))];
    },
  };
}
