// Validation of a PodSpec, shared by Pods and pod templates. Paths are relative to `base`.
import type { Fields } from '../object.js';
import { duplicate, invalidValue, isDNS1123Label, notSupported, required, validatePort, type FieldError } from '../validation.js';
import { quantityValue } from '../../util/index.js';

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];
const protocols = ['TCP', 'UDP', 'SCTP'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];

/** Each resource's request may not exceed its limit (`resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`). */
function validateResources(resources: Fields | undefined, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const requests = (resources?.requests ?? {}) as Record<string, unknown>;
  const limits = (resources?.limits ?? {}) as Record<string, unknown>;
  for (const [name, req] of Object.entries(requests)) {
    if (!(name in limits)) continue;
    const r = quantityValue(req), l = quantityValue(limits[name]);
    if (r !== null && l !== null && r > l) errs.push(invalidValue(`${base}.requests`, String(req), `must be less than or equal to ${name} limit of ${String(limits[name])}`));
  }
  return errs;
}

const downwardVolumeFields = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];

/** Items of a downwardAPI volume or projection: a relative path without `..`, and exactly
 *  one of a metadata fieldRef (one label/annotation allowed) or a named container's
 *  resourceFieldRef. */
function validateDownwardItems(items: unknown, base: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(items)) return errs;
  items.forEach((it: Fields, i: number) => {
    const p = `${base}[${i}]`;
    if (!it.path) errs.push(required(`${p}.path`));
    else if (String(it.path).startsWith('/')) errs.push(invalidValue(`${p}.path`, it.path, 'must be a relative path'));
    else if (String(it.path).split('/').includes('..')) errs.push(invalidValue(`${p}.path`, it.path, "must not contain '..'"));
    if (it.fieldRef && it.resourceFieldRef) errs.push(invalidValue(p, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
    else if (it.fieldRef) {
      const fp = String(it.fieldRef.fieldPath ?? '');
      if (!fp) errs.push(required(`${p}.fieldRef.fieldPath`));
      else if (!/^metadata\.(labels|annotations)\['.+'\]$/.test(fp) && !downwardVolumeFields.includes(fp)) errs.push(notSupported(`${p}.fieldRef.fieldPath`, fp, downwardVolumeFields));
    } else if (it.resourceFieldRef) {
      if (!it.resourceFieldRef.containerName) errs.push(required(`${p}.resourceFieldRef.containerName`));
    }
  });
  return errs;
}

function validateContainers(list: unknown, base: string, requireOne: boolean, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  if (list === undefined || list === null) return requireOne ? [required(base)] : [];
  if (!Array.isArray(list)) return [invalidValue(base, list, 'must be a list')];
  if (requireOne && list.length === 0) errs.push(required(base));
  list.forEach((c: Fields, i) => {
    const p = `${base}[${i}]`;
    if (!c.name) errs.push(required(`${p}.name`));
    else {
      const e = isDNS1123Label(c.name);
      if (e) errs.push(invalidValue(`${p}.name`, c.name, e));
      if (seen.has(c.name)) errs.push(duplicate(`${p}.name`, c.name));
      seen.add(c.name);
    }
    if (!c.image) errs.push(required(`${p}.image`));
    if (c.imagePullPolicy !== undefined && !pullPolicies.includes(c.imagePullPolicy)) errs.push(notSupported(`${p}.imagePullPolicy`, c.imagePullPolicy, pullPolicies));
    errs.push(...validateResources(c.resources, `${p}.resources`));
    const portNames = new Set<string>();
    (c.ports ?? []).forEach((port: Fields, j: number) => {
      const pp = `${p}.ports[${j}]`;
      errs.push(...validatePort(port.containerPort, `${pp}.containerPort`));
      if (port.hostPort !== undefined && port.hostPort !== 0) errs.push(...validatePort(port.hostPort, `${pp}.hostPort`));
      if (port.protocol && !protocols.includes(port.protocol)) errs.push(notSupported(`${pp}.protocol`, port.protocol, protocols));
      if (port.name) {
        if (portNames.has(port.name)) errs.push(duplicate(`${pp}.name`, port.name));
        portNames.add(port.name);
      }
    });
    const envNames = new Set<string>();
    (c.env ?? []).forEach((e: Fields, j: number) => {
      if (!e.name) errs.push(required(`${p}.env[${j}].name`));
      envNames.add(e.name);
    });
    const mounts = new Set<string>();
    (c.volumeMounts ?? []).forEach((m: Fields, j: number) => {
      if (!m.name) errs.push(required(`${p}.volumeMounts[${j}].name`));
      if (!m.mountPath) errs.push(required(`${p}.volumeMounts[${j}].mountPath`));
      else if (mounts.has(m.mountPath)) errs.push(invalidValue(`${p}.volumeMounts[${j}].mountPath`, m.mountPath, 'must be unique'));
      mounts.add(m.mountPath);
    });
  });
  return errs;
}

export function validatePodSpec(spec: Fields | undefined, base: string): FieldError[] {
  if (!spec) return [required(base)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  errs.push(...validateContainers(spec.containers, `${base}.containers`, true, names));
  errs.push(...validateContainers(spec.initContainers, `${base}.initContainers`, false, names));
  if (spec.restartPolicy && !restartPolicies.includes(spec.restartPolicy)) errs.push(notSupported(`${base}.restartPolicy`, spec.restartPolicy, restartPolicies));
  if (spec.dnsPolicy && !dnsPolicies.includes(spec.dnsPolicy)) errs.push(notSupported(`${base}.dnsPolicy`, spec.dnsPolicy, dnsPolicies));
  if (spec.dnsPolicy === 'None' && !spec.dnsConfig) errs.push(required(`${base}.dnsConfig`, 'must provide `dnsConfig` when `dnsPolicy` is None'));
  const volumeNames = new Set<string>();
  (spec.volumes ?? []).forEach((v: Fields, i: number) => {
    const p = `${base}.volumes[${i}]`;
    if (!v.name) errs.push(required(`${p}.name`));
    else {
      const e = isDNS1123Label(v.name);
      if (e) errs.push(invalidValue(`${p}.name`, v.name, e));
      if (volumeNames.has(v.name)) errs.push(duplicate(`${p}.name`, v.name));
      volumeNames.add(v.name);
    }
    errs.push(...validateDownwardItems(v.downwardAPI?.items, `${p}.downwardAPI.items`));
    (v.projected?.sources ?? []).forEach((src: Fields, j: number) => {
      errs.push(...validateDownwardItems(src.downwardAPI?.items, `${p}.projected.sources[${j}].downwardAPI.items`));
      const exp = src.serviceAccountToken?.expirationSeconds;
      const f = `${p}.projected.sources[${j}].serviceAccountToken.expirationSeconds`;
      if (typeof exp === 'number' && exp < 600) errs.push(invalidValue(f, exp, 'may not specify a duration less than 10 minutes'));
      else if (typeof exp === 'number' && exp > 2 ** 32) errs.push(invalidValue(f, exp, 'may not specify a duration larger than 2^32 seconds'));
      if (src.serviceAccountToken && !src.serviceAccountToken.path) errs.push(required(`${p}.projected.sources[${j}].serviceAccountToken.path`));
    });
  });
  for (const [list, field] of [[spec.containers, 'containers'], [spec.initContainers, 'initContainers']] as const) {
    (list ?? []).forEach((c: Fields, i: number) => (c.volumeMounts ?? []).forEach((m: Fields, j: number) => {
      if (m.name && !volumeNames.has(m.name)) errs.push({ type: 'FieldValueNotSupported', field: `${base}.${field}[${i}].volumeMounts[${j}].name`, message: `${JSON.stringify(m.name)}: must match the name of a volume` });
    }));
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && (typeof deadline !== 'number' || !Number.isInteger(deadline) || deadline < 1 || deadline > 2147483647)) {
    errs.push(invalidValue(`${base}.activeDeadlineSeconds`, deadline, 'must be between 1 and 2147483647, inclusive'));
  }
  if (spec.terminationGracePeriodSeconds !== undefined && (typeof spec.terminationGracePeriodSeconds !== 'number' || spec.terminationGracePeriodSeconds < 0)) {
    errs.push(invalidValue(`${base}.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  return errs;
}
