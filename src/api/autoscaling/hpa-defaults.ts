// SetDefaults_HorizontalPodAutoscaler (autoscaling/v2): minReplicas 1, 80% average CPU
// utilisation when no metric is named, and, when `behavior` is given, upstream's default
// scale-up and scale-down rules for whatever it leaves out.
import type { Fields, KubeObject } from '../object.js';

export const DEFAULT_CPU_UTILIZATION = 80;

export const defaultScaleUp = (): Fields => ({
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});
export const defaultScaleDown = (): Fields => ({
  stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

function fill(rules: Fields | undefined, defaults: Fields): Fields {
  const r = { ...(rules ?? {}) };
  r.stabilizationWindowSeconds ??= defaults.stabilizationWindowSeconds;
  r.selectPolicy ??= defaults.selectPolicy;
  if (!r.policies?.length) r.policies = defaults.policies;
  return r;
}

export function defaultHPA(o: KubeObject): void {
  const spec = (o.spec ??= {});
  spec.minReplicas ??= 1;
  if (!spec.metrics?.length) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  if (spec.behavior) spec.behavior = { scaleUp: fill(spec.behavior.scaleUp, defaultScaleUp()), scaleDown: fill(spec.behavior.scaleDown, defaultScaleDown()) };
}
