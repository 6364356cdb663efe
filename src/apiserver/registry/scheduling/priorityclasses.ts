// scheduling.k8s.io/v1 PriorityClasses, validated as upstream: value at most one billion
// unless the class is a system one, system- names reserved, value and preemptionPolicy fixed
// after create, one globalDefault (checked by Priority admission, as upstream).
import type { KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { forbiddenField, invalidValue, notSupported, required, type FieldError } from '../../../api/validation.js';

/** Highest value of a user-defined class; system classes are above it (upstream's HighestUserDefinablePriority). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  { metadata: { name: 'system-node-critical' }, value: 2_000_001_000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { metadata: { name: 'system-cluster-critical' }, value: 2_000_000_000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];
const preemptionPolicies = ['PreemptLowerPriority', 'Never'];

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = o.metadata.name ?? '';
  const system = SYSTEM_PRIORITY_CLASSES.find((c) => c.metadata.name === name);
  if (typeof o.value !== 'number') errs.push(required('value'));
  else if (system) {
    if (o.value !== system.value) errs.push(invalidValue('metadata.name', name, `priority class name ${name} is reserved for system critical pods and its value must be ${system.value}`));
  } else {
    if (name.startsWith('system-')) errs.push(invalidValue('metadata.name', name, "priority class names with 'system-' prefix are reserved"));
    if (o.value > HIGHEST_USER_DEFINABLE_PRIORITY) errs.push(forbiddenField('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (o.preemptionPolicy !== undefined && !preemptionPolicies.includes(o.preemptionPolicy)) errs.push(notSupported('preemptionPolicy', o.preemptionPolicy, preemptionPolicies));
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.value !== old.value) errs.push(forbiddenField('value', 'may not be changed in an update.'));
  if (o.preemptionPolicy !== old.preemptionPolicy) errs.push(invalidValue('preemptionPolicy', o.preemptionPolicy, 'field is immutable'));
  return errs;
}

export const priorityclasses: ResourceDef = {
  group: 'scheduling.k8s.io', resource: 'priorityclasses', singular: 'priorityclass', kind: 'PriorityClass', listKind: 'PriorityClassList', namespaced: false,
  shortNames: ['pc'],
  versions: [identityVersion('v1', 'io.k8s.api.scheduling.v1.PriorityClass', (o) => { o.preemptionPolicy ??= 'PreemptLowerPriority'; })],
  storageVersion: 'v1',
  strategy: {
    defaults(o) { o.preemptionPolicy ??= 'PreemptLowerPriority'; o.globalDefault ??= false; },
    validate, validateUpdate,
  },
  columns: [
    col('Value', 'The value of the class.', (o) => o.value ?? 0, 0, 'integer'),
    col('Global-Default', 'Whether this is the default for pods without a class.', (o) => o.globalDefault === true, 0, 'boolean'),
    ageColumn,
    col('PreemptionPolicy', 'Whether pods of the class may preempt.', (o) => o.preemptionPolicy ?? '', 0),
  ],
};
