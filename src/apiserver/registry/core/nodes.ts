import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, joinOrNone, specStrategy, statusStrategy } from '../common.js';
import { invalidValue, isCIDR, notSupported, type FieldError } from '../../../api/validation.js';

const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function nodeStatus(o: KubeObject): string {
  const ready = ((o.status?.conditions ?? []) as Fields[]).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (o.spec?.unschedulable) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function roles(o: KubeObject): string {
  const r = Object.keys(o.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter(Boolean);
  return joinOrNone(r.sort());
}

const address = (type: string) => (o: KubeObject) =>
  ((o.status?.addresses ?? []) as Fields[]).find((a) => a.type === type)?.address ?? '<none>';

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  ((o.spec?.taints ?? []) as Fields[]).forEach((t, i) => {
    if (!t.key) errs.push({ type: 'FieldValueRequired', field: `spec.taints[${i}].key`, message: '' });
    if (!effects.includes(t.effect)) errs.push(notSupported(`spec.taints[${i}].effect`, t.effect, effects));
  });
  if (o.spec?.podCIDR !== undefined && o.spec.podCIDR !== '' && !isCIDR(o.spec.podCIDR)) errs.push(invalidValue('spec.podCIDR', o.spec.podCIDR, 'must be a valid CIDR'));
  ((o.spec?.podCIDRs ?? []) as unknown[]).forEach((c, i) => {
    if (!isCIDR(c)) errs.push(invalidValue(`spec.podCIDRs[${i}]`, c, 'must be a valid CIDR'));
  });
  return errs;
}

export const nodes: ResourceDef = {
  group: '', resource: 'nodes', singular: 'node', kind: 'Node', listKind: 'NodeList', namespaced: false,
  shortNames: ['no'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.Node')],
  storageVersion: 'v1',
  // A kubelet registers its Node with status already filled in.
  strategy: specStrategy({
    keepStatusOnCreate: true,
    validate,
    validateUpdate(o, old) {
      const errs: FieldError[] = [];
      if (old.spec?.podCIDR && o.spec?.podCIDR !== old.spec.podCIDR) errs.push(invalidValue('spec.podCIDR', o.spec?.podCIDR, 'node updates may not change podCIDR except from "" to valid'));
      return errs;
    },
  }),
  statusStrategy: statusStrategy(),
  fieldLabels: (o) => ({ 'spec.unschedulable': String(o.spec?.unschedulable ?? false) }),
  columns: [
    col('Status', 'The status of the node.', nodeStatus),
    col('Roles', 'The roles of the node.', roles),
    ageColumn,
    col('Version', 'Kubelet version.', (o) => o.status?.nodeInfo?.kubeletVersion ?? ''),
    col('Internal-IP', 'Internal IP of the node.', address('InternalIP'), 1),
    col('External-IP', 'External IP of the node.', address('ExternalIP'), 1),
    col('OS-Image', 'OS image reported by the node.', (o) => o.status?.nodeInfo?.osImage ?? '<unknown>', 1),
    col('Kernel-Version', 'Kernel version reported by the node.', (o) => o.status?.nodeInfo?.kernelVersion ?? '<unknown>', 1),
    col('Container-Runtime', 'Container runtime reported by the node.', (o) => o.status?.nodeInfo?.containerRuntimeVersion ?? '<unknown>', 1),
  ],
};
