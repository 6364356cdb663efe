// Validation of a CustomResourceDefinition, with kube-apiserver's field paths and messages:
// name = <plural>.<group>, names, scope, versions (exactly one storage version, unique
// names), structural schemas, subresources, printer columns, selectable fields, conversion.
import type { KubeObject } from '../object.js';
import { isDNS1035Label, isDNS1123Subdomain, notSupported, required, type FieldError } from '../validation.js';
import { checkSchema } from './schema-check.js';
import { isObject, type JSONSchemaProps } from './structural.js';
import { parseSimplePath, pathSchema } from './jsonpath.js';

const invalid = (field: string, value: unknown, message: string): FieldError =>
  ({ type: 'FieldValueInvalid', field, message: `${JSON.stringify(value)}: ${message}` });
const kindPattern = /^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;
const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object; scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string } };
  additionalPrinterColumns?: { name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }[];
  selectableFields?: { jsonPath: string }[];
}

export interface CRDNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export interface CRDSpec {
  group: string;
  names: CRDNames;
  scope: string;
  versions: CRDVersion[];
  conversion?: { strategy: string; webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] } };
  preserveUnknownFields?: boolean;
}

const APPROVAL = 'api-approved.kubernetes.io';

/** Groups that belong to the Kubernetes project: a CRD in them needs an approval annotation. */
function isProtectedGroup(group: string): boolean {
  return ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));
}

export const specOf = (crd: KubeObject): CRDSpec => crd.spec as unknown as CRDSpec;

export function validateCRD(crd: KubeObject): FieldError[] {
  const spec = specOf(crd);
  const errs: FieldError[] = [];
  if (!isObject(spec)) return [required('spec')];
  const names = spec.names ?? ({} as CRDNames);
  const expected = `${names.plural}.${spec.group}`;
  if (crd.metadata.name !== expected) errs.push(invalid('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  if (!spec.group) errs.push(required('spec.group'));
  else {
    const e = isDNS1123Subdomain(spec.group);
    if (e) errs.push(invalid('spec.group', spec.group, e));
    else if (spec.group.split('.').length < 2) errs.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (spec.group && isProtectedGroup(spec.group) && !crd.metadata.annotations?.[APPROVAL]) {
    errs.push(required(`metadata.annotations[${APPROVAL}]`, `protected groups must have approval annotation "${APPROVAL}", see https://github.com/kubernetes/enhancements/pull/1111`));
  }
  if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
    errs.push(spec.scope ? notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']) : required('spec.scope'));
  }
  errs.push(...validateNames(names, 'spec.names'));
  errs.push(...validateVersions(spec));
  if (spec.preserveUnknownFields) errs.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  const strategy = spec.conversion?.strategy ?? 'None';
  if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  if (strategy === 'Webhook' && !spec.conversion?.webhook?.clientConfig) errs.push(required('spec.conversion.webhook', 'required when strategy is set to Webhook'));
  if (strategy === 'None' && spec.conversion?.webhook) errs.push({ type: 'FieldValueForbidden', field: 'spec.conversion.webhook', message: 'should not be set when strategy is not set to Webhook' });
  return errs;
}

export function validateCRDUpdate(crd: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCRD(crd);
  const spec = specOf(crd), before = specOf(old);
  if (spec.scope !== before.scope) errs.push(invalid('spec.scope', spec.scope, 'field is immutable'));
  const stored = ((crd.status as { storedVersions?: string[] } | undefined)?.storedVersions ?? []);
  stored.forEach((v, i) => {
    if (!spec.versions?.some((x) => x.name === v)) errs.push(invalid(`status.storedVersions[${i}]`, v, 'must appear in spec.versions'));
  });
  return errs;
}

export function validateNames(n: CRDNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, v: string | undefined, needed: boolean) => {
    if (!v) { if (needed) errs.push(required(field)); return; }
    const e = isDNS1035Label(v);
    if (e) errs.push(invalid(field, v, e));
  };
  label(`${path}.plural`, n.plural, true);
  label(`${path}.singular`, n.singular, false);
  (n.shortNames ?? []).forEach((s, i) => label(`${path}.shortNames[${i}]`, s, true));
  (n.categories ?? []).forEach((s, i) => label(`${path}.categories[${i}]`, s, true));
  if (!n.kind) errs.push(required(`${path}.kind`));
  else if (!kindPattern.test(n.kind)) errs.push(invalid(`${path}.kind`, n.kind, 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?'));
  if (n.listKind !== undefined) {
    if (!kindPattern.test(n.listKind)) errs.push(invalid(`${path}.listKind`, n.listKind, 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?'));
    else if (n.listKind === n.kind) errs.push(invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  }
  return errs;
}

function validateVersions(spec: CRDSpec): FieldError[] {
  const errs: FieldError[] = [];
  const versions = spec.versions ?? [];
  if (!versions.length) return [required('spec.versions', 'must have exactly one version marked as storage version')];
  const shown = JSON.stringify(versions.map((v) => ({ name: v.name, served: v.served, storage: v.storage })));
  if (versions.filter((v) => v.storage).length !== 1) errs.push({ type: 'FieldValueInvalid', field: 'spec.versions', message: `${shown}: must have exactly one version marked as storage version` });
  if (!versions.some((v) => v.served)) errs.push({ type: 'FieldValueInvalid', field: 'spec.versions', message: `${shown}: must have at least one served version` });
  if (new Set(versions.map((v) => v.name)).size !== versions.length) errs.push({ type: 'FieldValueInvalid', field: 'spec.versions', message: `${shown}: must contain unique version names` });
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (!v.name) errs.push(required(`${p}.name`));
    else { const e = isDNS1035Label(v.name); if (e) errs.push(invalid(`${p}.name`, v.name, e)); }
    const schema = v.schema?.openAPIV3Schema;
    errs.push(...checkSchema(schema, `${p}.schema.openAPIV3Schema`));
    const s = isObject(schema) ? schema : undefined;
    const scale = v.subresources?.scale;
    if (scale) {
      const sp = `${p}.subresources.scale`;
      if (!scale.specReplicasPath) errs.push(required(`${sp}.specReplicasPath`));
      else if (!scale.specReplicasPath.startsWith('.spec.') || !parseSimplePath(scale.specReplicasPath)) errs.push(invalid(`${sp}.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
      if (!scale.statusReplicasPath) errs.push(required(`${sp}.statusReplicasPath`));
      else if (!scale.statusReplicasPath.startsWith('.status.') || !parseSimplePath(scale.statusReplicasPath)) errs.push(invalid(`${sp}.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
      const sel = scale.labelSelectorPath;
      if (sel && (!/^\.(spec|status)\./.test(sel) || !parseSimplePath(sel))) errs.push(invalid(`${sp}.labelSelectorPath`, sel, 'should be a json path under either .spec or .status'));
    }
    (v.additionalPrinterColumns ?? []).forEach((c, j) => {
      const cp = `${p}.additionalPrinterColumns[${j}]`;
      if (!c.name) errs.push(required(`${cp}.name`));
      if (!COLUMN_TYPES.includes(c.type)) errs.push(c.type ? notSupported(`${cp}.type`, c.type, COLUMN_TYPES) : required(`${cp}.type`));
      if (!c.jsonPath) errs.push(required(`${cp}.JSONPath`));
      else if (!c.jsonPath.startsWith('.')) errs.push(invalid(`${cp}.jsonPath`, c.jsonPath, 'must be a simple json path starting with .'));
      if (c.priority !== undefined && c.priority < 0) errs.push(invalid(`${cp}.priority`, c.priority, 'must be greater than or equal to 0'));
    });
    const fields = v.selectableFields ?? [];
    if (fields.length > 8) errs.push({ type: 'FieldValueTooMany', field: `${p}.selectableFields`, message: `${fields.length}: must have at most 8 items` });
    fields.forEach((f, j) => {
      const fp = `${p}.selectableFields[${j}].jsonPath`;
      const parts = parseSimplePath(f.jsonPath ?? '');
      if (!f.jsonPath) errs.push(required(fp));
      else if (!parts) errs.push(invalid(fp, f.jsonPath, 'is an invalid path'));
      else if (s) {
        const t = pathSchema(s, parts);
        if (!t) errs.push(invalid(fp, f.jsonPath, 'is an invalid path'));
        else if (!['string', 'integer', 'boolean'].includes(t.type ?? '')) errs.push(invalid(fp, f.jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
      }
    });
  });
  return errs;
}
