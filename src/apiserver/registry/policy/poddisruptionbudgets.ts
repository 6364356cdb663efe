// policy/v1 PodDisruptionBudgets: validated as upstream's ValidatePodDisruptionBudget (and its
// status update), with a /status the disruption controller and the eviction subresource write.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { invalidValue, notSupported, validateNonNegative, type FieldError } from '../../../api/validation.js';
import { validateSelector } from '../networking/networkpolicies.js';

const policies = ['AlwaysAllow', 'IfHealthyBudget'];
const percentFormat = /^[0-9]+%$/;
const percentMessage = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function validateIntOrPercent(v: unknown, field: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') {
    if (!percentFormat.test(v)) return [invalidValue(field, v, percentMessage)];
    return parseInt(v, 10) > 100 ? [invalidValue(field, v, 'must not be greater than 100%')] : [];
  }
  if (typeof v === 'number' && Number.isInteger(v)) return validateNonNegative(v, field);
  return [invalidValue(field, v, "must be an integer or percentage (e.g '5%')")];
}

function validate(o: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const errs: FieldError[] = [];
  const min = spec.minAvailable ?? undefined, max = spec.maxUnavailable ?? undefined;
  if (min !== undefined && max !== undefined) errs.push(invalidValue('spec.minAvailable', min, 'minAvailable and maxUnavailable cannot be both set'));
  errs.push(...validateIntOrPercent(min, 'spec.minAvailable'), ...validateIntOrPercent(max, 'spec.maxUnavailable'));
  errs.push(...validateSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== null && !policies.includes(policy)) errs.push(notSupported('spec.unhealthyPodEvictionPolicy', policy, policies));
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate: the counts are never negative. */
function validateStatus(o: KubeObject): FieldError[] {
  const s: Fields = o.status ?? {};
  return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']
    .flatMap((f) => validateNonNegative(s[f], `status.${f}`));
}

/** What `kubectl get pdb` prints for an unset bound. */
const bound = (v: unknown): string | number => (v === undefined || v === null ? 'N/A' : (v as string | number));

export const poddisruptionbudgets: ResourceDef = {
  group: 'policy', resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget', listKind: 'PodDisruptionBudgetList',
  namespaced: true, shortNames: ['pdb'],
  versions: [identityVersion('v1', 'io.k8s.api.policy.v1.PodDisruptionBudget')],
  storageVersion: 'v1',
  // A new budget allows nothing until the controller has counted (upstream's PrepareForCreate).
  strategy: specStrategy({ initialStatus: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }), validate }),
  statusStrategy: statusStrategy(validateStatus),
  columns: [
    col('Min Available', 'The minimum number of pods that must be available.', (o) => bound(o.spec?.minAvailable)),
    col('Max Unavailable', 'The maximum number of pods that may be unavailable.', (o) => bound(o.spec?.maxUnavailable)),
    col('Allowed Disruptions', 'Calculated number of pods that may be disrupted at this time.', (o) => o.status?.disruptionsAllowed ?? 0, 0, 'integer'),
    ageColumn,
  ],
};
