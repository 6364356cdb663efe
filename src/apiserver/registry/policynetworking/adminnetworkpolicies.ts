// policy.networking.k8s.io/v1alpha1 AdminNetworkPolicy and BaselineAdminNetworkPolicy, served
// by capstan itself (no CRD to install) and validated as upstream's CRDs validate them
// (kubernetes-sigs/network-policy-api apis/v1alpha1: the OpenAPI bounds and CEL rules), with
// the API server's wording for those failures.
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, specStrategy, statusStrategy } from '../common.js';
import { invalidValue, isCIDR, notSupported, required, type FieldError } from '../../../api/validation.js';
import { validateSelector } from '../networking/networkpolicies.js';

const GROUP = 'policy.networking.k8s.io';
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_RULES = 100;
const MAX_PEERS = 100;
const MAX_PORTS = 100;
const MAX_NETWORKS = 25;
/** BaselineAdminNetworkPolicy is a singleton: upstream's CRD admits only this name. */
export const BASELINE_NAME = 'default';

const tooMany = (field: string, n: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field, message: `${n}: must have at most ${max} items` });
const tooFew = (field: string, n: number, min: number): FieldError => invalidValue(field, n, `${field} in body should have at least ${min} items`);

function count(list: unknown, field: string, min: number, max: number): FieldError[] {
  if (list === undefined || list === null) return min ? [required(field)] : [];
  if (!Array.isArray(list)) return [invalidValue(field, list, 'must be a list')];
  if (list.length > max) return [tooMany(field, list.length, max)];
  return list.length < min ? [tooFew(field, list.length, min)] : [];
}

/** Exactly one of `fields` set (the CRD's minProperties/maxProperties 1). */
function oneOf(o: Fields | undefined, field: string, fields: string[]): FieldError[] {
  const set = fields.filter((f) => o?.[f] !== undefined && o?.[f] !== null);
  const n = Object.keys(o ?? {}).length;
  if (!o || n < 1) return [invalidValue(field, n, `${field} in body should have at least 1 properties`)];
  if (n > 1) return [invalidValue(field, n, `${field} in body should have at most 1 properties`)];
  return set.length ? [] : [notSupported(field, Object.keys(o)[0], fields)];
}

function validateNamespacedPod(p: Fields, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!p.namespaceSelector) errs.push(required(`${field}.namespaceSelector`));
  if (!p.podSelector) errs.push(required(`${field}.podSelector`));
  errs.push(...validateSelector(p.namespaceSelector, `${field}.namespaceSelector`), ...validateSelector(p.podSelector, `${field}.podSelector`));
  return errs;
}

function validateSubject(s: Fields | undefined): FieldError[] {
  if (!s) return [required('spec.subject')];
  const errs = oneOf(s, 'spec.subject', ['namespaces', 'pods']);
  if (errs.length) return errs;
  return s.pods ? validateNamespacedPod(s.pods, 'spec.subject.pods') : validateSelector(s.namespaces, 'spec.subject.namespaces');
}

const portNumberError = (n: unknown): string | null =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535 ? null : 'should be an integer between 1 and 65535';

function validatePort(p: Fields, field: string): FieldError[] {
  const errs = oneOf(p, field, ['portNumber', 'namedPort', 'portRange']);
  if (errs.length) return errs;
  const proto = (p.portNumber ?? p.portRange)?.protocol;
  if (proto !== undefined && !PROTOCOLS.includes(proto)) errs.push(notSupported(`${field}.${p.portNumber ? 'portNumber' : 'portRange'}.protocol`, proto, PROTOCOLS));
  if (p.portNumber) {
    const e = portNumberError(p.portNumber.port);
    if (e) errs.push(invalidValue(`${field}.portNumber.port`, p.portNumber.port, e));
  } else if (p.portRange) {
    for (const k of ['start', 'end']) {
      const e = portNumberError(p.portRange[k]);
      if (e) errs.push(invalidValue(`${field}.portRange.${k}`, p.portRange[k], e));
    }
    if (!errs.length && !(p.portRange.start < p.portRange.end)) errs.push(invalidValue(`${field}.portRange`, 'object', 'Start port must be smaller than End port'));
  } else if (typeof p.namedPort !== 'string' || !p.namedPort) errs.push(invalidValue(`${field}.namedPort`, p.namedPort, 'must be a non-empty string'));
  return errs;
}

function validatePeer(p: Fields, field: string, egress: boolean, baseline: boolean): FieldError[] {
  const kinds = egress ? ['namespaces', 'pods', 'nodes', 'networks', ...(baseline ? [] : ['domainNames'])] : ['namespaces', 'pods'];
  const errs = oneOf(p, field, kinds);
  if (errs.length) return errs;
  if (p.pods) return validateNamespacedPod(p.pods, `${field}.pods`);
  if (p.namespaces) return validateSelector(p.namespaces, `${field}.namespaces`);
  if (p.nodes) return validateSelector(p.nodes, `${field}.nodes`);
  if (p.networks) {
    errs.push(...count(p.networks, `${field}.networks`, 1, MAX_NETWORKS));
    (p.networks as unknown[]).forEach((c, i) => { if (!isCIDR(c)) errs.push(invalidValue(`${field}.networks[${i}]`, c, 'Invalid CIDR format provided')); });
  }
  if (p.domainNames) errs.push(...count(p.domainNames, `${field}.domainNames`, 1, 25));
  return errs;
}

function validateRules(rules: unknown, dir: 'ingress' | 'egress', baseline: boolean): FieldError[] {
  const field = `spec.${dir}`;
  const errs = count(rules, field, 0, MAX_RULES);
  if (errs.length || !rules) return errs;
  const actions = baseline ? ['Allow', 'Deny'] : ['Allow', 'Deny', 'Pass'];
  const peersKey = dir === 'ingress' ? 'from' : 'to';
  (rules as Fields[]).forEach((r, i) => {
    const path = `${field}[${i}]`;
    if (!r || typeof r !== 'object') { errs.push(invalidValue(path, r, 'must be an object')); return; }
    if (r.name !== undefined && (typeof r.name !== 'string' || r.name.length > 100)) errs.push({ type: 'FieldValueTooLong', field: `${path}.name`, message: 'may not be more than 100 bytes' });
    if (r.action === undefined) errs.push(required(`${path}.action`));
    else if (!actions.includes(r.action)) errs.push(notSupported(`${path}.action`, r.action, actions));
    const peerErrs = count(r[peersKey], `${path}.${peersKey}`, 1, MAX_PEERS);
    errs.push(...peerErrs);
    if (!peerErrs.length) (r[peersKey] as Fields[]).forEach((p, j) => errs.push(...validatePeer(p ?? {}, `${path}.${peersKey}[${j}]`, dir === 'egress', baseline)));
    if (r.ports !== undefined) {
      const portErrs = count(r.ports, `${path}.ports`, 1, MAX_PORTS);
      errs.push(...portErrs);
      if (!portErrs.length) (r.ports as Fields[]).forEach((p, j) => errs.push(...validatePort(p ?? {}, `${path}.ports[${j}]`)));
      const named = Array.isArray(r.ports) && r.ports.some((p: Fields) => p?.namedPort !== undefined);
      const addressPeers = Array.isArray(r.to) && r.to.some((p: Fields) => p?.networks || p?.nodes || p?.domainNames);
      if (dir === 'egress' && named && addressPeers) errs.push(invalidValue(path, 'object', `networks/nodes${baseline ? '' : '/domainNames'} peer cannot be set with namedPorts since there are no namedPorts for networks/nodes${baseline ? '' : '/domainNames'}`));
    }
  });
  return errs;
}

/** The CRD's `protocol` default (TCP) on ports given by number or range. */
function defaults(o: KubeObject): void {
  for (const r of [...(o.spec?.ingress ?? []), ...(o.spec?.egress ?? [])] as Fields[]) {
    for (const p of (r?.ports ?? []) as Fields[]) {
      if (p?.portNumber && typeof p.portNumber === 'object') p.portNumber.protocol ??= 'TCP';
      if (p?.portRange && typeof p.portRange === 'object') p.portRange.protocol ??= 'TCP';
    }
  }
}

function validateAdmin(o: KubeObject): FieldError[] {
  const spec: Fields = o.spec ?? {};
  const errs: FieldError[] = [];
  const pr = spec.priority;
  if (pr === undefined || pr === null) errs.push(required('spec.priority'));
  else if (typeof pr !== 'number' || !Number.isInteger(pr)) errs.push(invalidValue('spec.priority', pr, 'spec.priority in body must be of type integer'));
  else if (pr < 0) errs.push(invalidValue('spec.priority', pr, 'spec.priority in body should be greater than or equal to 0'));
  else if (pr > 1000) errs.push(invalidValue('spec.priority', pr, 'spec.priority in body should be less than or equal to 1000'));
  errs.push(...validateSubject(spec.subject), ...validateRules(spec.ingress, 'ingress', false), ...validateRules(spec.egress, 'egress', false));
  return errs;
}

function validateBaseline(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.metadata.name !== BASELINE_NAME) errs.push(invalidValue('metadata.name', o.metadata.name, `Only one baseline admin network policy with metadata.name="${BASELINE_NAME}" can be created in the cluster`));
  const spec: Fields = o.spec ?? {};
  errs.push(...validateSubject(spec.subject), ...validateRules(spec.ingress, 'ingress', true), ...validateRules(spec.egress, 'egress', true));
  return errs;
}

/** Both kinds: cluster-scoped, one version, the same defaults; a status only implementations write. */
function kindDef(kind: 'AdminNetworkPolicy' | 'BaselineAdminNetworkPolicy', shortName: string, validate: (o: KubeObject) => FieldError[], columns: ResourceDef['columns']): ResourceDef {
  const resource = `${kind.toLowerCase().slice(0, -1)}ies`;
  return {
    group: GROUP, resource, singular: kind.toLowerCase(), kind, listKind: `${kind}List`,
    namespaced: false, shortNames: [shortName],
    versions: [identityVersion('v1alpha1', `io.k8s.networking.policy.v1alpha1.${kind}`, defaults)],
    storageVersion: 'v1alpha1',
    strategy: specStrategy({ defaults, validate }),
    statusStrategy: statusStrategy(),
    columns,
  };
}

export const adminnetworkpolicies = kindDef('AdminNetworkPolicy', 'anp', validateAdmin,
  [col('Priority', 'Lower numbers are judged first.', (o) => String(o.spec?.priority ?? '')), ageColumn]);
export const baselineadminnetworkpolicies = kindDef('BaselineAdminNetworkPolicy', 'banp', validateBaseline, [ageColumn]);
