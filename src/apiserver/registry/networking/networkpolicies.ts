// networking.k8s.io/v1 NetworkPolicy: defaults and validation as k8s.io/kubernetes
// pkg/apis/networking (v1 defaults, ValidateNetworkPolicySpec).
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { forbiddenField, invalidValue, isCIDR, isQualifiedName, notSupported, required, validateLabels, type FieldError } from '../../../api/validation.js';
import { fromLabelSelector, selectorString } from '../../../api/labels.js';
import { cidrContains, parseCidr } from '../../../util/index.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
function defaults(o: KubeObject): void {
  const spec = o.spec ??= {};
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])] as Fields[]) {
    for (const p of (rule?.ports ?? []) as Fields[]) if (p) p.protocol ??= 'TCP';
  }
  if (!spec.policyTypes?.length) spec.policyTypes = spec.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

export function validateSelector(sel: unknown, field: string): FieldError[] {
  if (sel === undefined || sel === null) return [];
  const s = sel as { matchLabels?: unknown; matchExpressions?: Fields[] };
  const errs = validateLabels(s.matchLabels, `${field}.matchLabels`);
  (s.matchExpressions ?? []).forEach((e, i) => {
    const path = `${field}.matchExpressions[${i}]`;
    const keyErr = typeof e.key === 'string' ? isQualifiedName(e.key) : 'must be a string';
    if (keyErr) errs.push(invalidValue(`${path}.key`, e.key, keyErr));
    const values = (e.values ?? []) as unknown[];
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (!values.length) errs.push(required(`${path}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length) errs.push(forbiddenField(`${path}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    } else errs.push(invalidValue(`${path}.operator`, e.operator, 'not a valid selector operator'));
  });
  return errs;
}

/** IsValidPortName (an IANA_SVC_NAME). */
export function portNameError(name: string): string | null {
  if (name.length < 1 || name.length > 15) return 'must be no more than 15 characters';
  if (!/^[-a-z0-9]+$/.test(name)) return 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)';
  if (!/[a-z]/.test(name)) return 'must contain at least one letter (a-z)';
  if (name.includes('--')) return 'must not contain consecutive hyphens';
  if (name.startsWith('-') || name.endsWith('-')) return 'must not begin or end with a hyphen';
  return null;
}

const portNumError = (n: unknown): string | null =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535 ? null : 'must be between 1 and 65535, inclusive';

function validatePort(p: Fields, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol)) errs.push(notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
  if (p.port === undefined || p.port === null) {
    if (p.endPort !== undefined && p.endPort !== null) errs.push(invalidValue(`${path}.endPort`, p.endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof p.port === 'number') {
    const portErr = portNumError(p.port);
    if (portErr) errs.push(invalidValue(`${path}.port`, p.port, portErr));
    if (p.endPort !== undefined && p.endPort !== null) {
      if (p.endPort < p.port) errs.push(invalidValue(`${path}.endPort`, p.port, 'must be greater than or equal to `port`'));
      const endErr = portNumError(p.endPort);
      if (endErr) errs.push(invalidValue(`${path}.endPort`, p.endPort, endErr));
    }
  } else {
    if (p.endPort !== undefined && p.endPort !== null) errs.push(invalidValue(`${path}.endPort`, p.endPort, 'may not be specified when `port` is non-numeric'));
    const nameErr = portNameError(String(p.port));
    if (nameErr) errs.push(invalidValue(`${path}.port`, p.port, nameErr));
  }
  return errs;
}

function validateIPBlock(b: Fields, path: string): FieldError[] {
  if (!b.cidr) return [required(`${path}.cidr`)];
  if (!isCIDR(b.cidr)) return [invalidValue(`${path}.cidr`, b.cidr, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
  const errs: FieldError[] = [];
  const outer = parseCidr(b.cidr, 'mask');
  ((b.except ?? []) as unknown[]).forEach((x, i) => {
    const p = `${path}.except[${i}]`;
    if (!isCIDR(x)) { errs.push(invalidValue(p, x, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')); return; }
    const inner = parseCidr(x as string, 'mask');
    // IPv6 blocks are only checked for form (capstan's pod network is IPv4).
    if (!outer || !inner) return;
    if (inner.prefix <= outer.prefix || !cidrContains(outer, inner.base)) errs.push(invalidValue(p, x, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: Fields, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  if (peer.podSelector) { n++; errs.push(...validateSelector(peer.podSelector, `${path}.podSelector`)); }
  if (peer.namespaceSelector) { n++; errs.push(...validateSelector(peer.namespaceSelector, `${path}.namespaceSelector`)); }
  if (peer.ipBlock) { n++; errs.push(...validateIPBlock(peer.ipBlock, `${path}.ipBlock`)); }
  if (n === 0) errs.push(required(path, 'must specify a peer'));
  else if (n > 1 && peer.ipBlock) errs.push(forbiddenField(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

function validate(o: KubeObject): FieldError[] {
  const spec = o.spec ?? {};
  const errs = validateSelector(spec.podSelector, 'spec.podSelector');
  for (const [dir, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    ((spec[dir] ?? []) as Fields[]).forEach((rule, i) => {
      const path = `spec.${dir}[${i}]`;
      ((rule?.ports ?? []) as Fields[]).forEach((p, j) => errs.push(...validatePort(p ?? {}, `${path}.ports[${j}]`)));
      ((rule?.[peers] ?? []) as Fields[]).forEach((p, j) => errs.push(...validatePeer(p ?? {}, `${path}.${peers}[${j}]`)));
    });
  }
  const types = (spec.policyTypes ?? []) as unknown[];
  if (types.length > POLICY_TYPES.length) errs.push(invalidValue('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  else types.forEach((t, i) => { if (!POLICY_TYPES.includes(t as string)) errs.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES)); });
  return errs;
}

/** metav1.FormatLabelSelector: `<none>` for the empty selector. */
function podSelectorText(o: KubeObject): string {
  try {
    return selectorString(fromLabelSelector(o.spec?.podSelector) ?? []) || '<none>';
  } catch { // validation refuses such a selector on write
    return '<error>';
  }
}

export const networkpolicies: ResourceDef = {
  group: 'networking.k8s.io', resource: 'networkpolicies', singular: 'networkpolicy', kind: 'NetworkPolicy', listKind: 'NetworkPolicyList',
  namespaced: true, shortNames: ['netpol'],
  versions: [identityVersion('v1', 'io.k8s.api.networking.v1.NetworkPolicy', defaults)],
  storageVersion: 'v1',
  strategy: { defaults, validate },
  columns: [col('Pod-Selector', 'The pods the policy applies to.', podSelectorText), ageColumn],
};
