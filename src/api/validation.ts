// Validators shared by every resource's strategy. They never mutate; each returns field
// errors with Kubernetes-style paths (`metadata.name`, `spec.template.spec.containers[0].image`).
import { isIP } from 'node:net';
import type { ObjectMeta } from './object.js';

/** One validation failure at a field path, as `field.ErrorList` entries. */
export interface FieldError {
  type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueTypeInvalid' | 'FieldValueNotFound';
  field: string;
  message: string;
}

export const required = (field: string, message = ''): FieldError => ({ type: 'FieldValueRequired', field, message });
export const invalidValue = (field: string, value: unknown, message: string): FieldError =>
  ({ type: 'FieldValueInvalid', field, message: `${JSON.stringify(value)}: ${message}` });
export const notSupported = (field: string, value: unknown, allowed: string[]): FieldError =>
  ({ type: 'FieldValueNotSupported', field, message: `${JSON.stringify(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}` });
export const duplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, message: JSON.stringify(value) });
export const notFoundField = (field: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field, message: JSON.stringify(value) });
export const forbiddenField = (field: string, message: string): FieldError => ({ type: 'FieldValueForbidden', field, message });

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isDNS1123Label(v: string): string | null {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (!dns1123Label.test(v)) return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  return null;
}

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Service names: a DNS-1035 label, which must start with a letter. */
export function isDNS1035Label(v: string): string | null {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (!dns1035Label.test(v)) return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  return null;
}

export function isDNS1123Subdomain(v: string): string | null {
  if (v.length > 253) return 'must be no more than 253 characters';
  if (!dns1123Subdomain.test(v)) return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  return null;
}

/** Label and annotation keys: an optional DNS subdomain prefix, a slash, and a name. */
export function isQualifiedName(v: string): string | null {
  const parts = v.split('/');
  if (parts.length > 2) return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'";
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    if (!parts[0]) return 'prefix part must be non-empty';
    const err = isDNS1123Subdomain(parts[0]);
    if (err) return `prefix part ${err}`;
  }
  if (!name) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!qualifiedNamePart.test(name)) return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  return null;
}

export function validateLabels(labels: unknown, field: string): FieldError[] {
  if (labels === undefined || labels === null) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    const keyErr = isQualifiedName(k);
    if (keyErr) errs.push(invalidValue(field, k, keyErr));
    if (typeof v !== 'string') errs.push(invalidValue(`${field}.${k}`, v, 'must be a string'));
    else if (v.length > 63 || !labelValue.test(v)) errs.push(invalidValue(field, v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, unknown>)) {
    const keyErr = isQualifiedName(k.toLowerCase());
    if (keyErr) errs.push(invalidValue(field, k, keyErr));
    size += k.length + (typeof v === 'string' ? v.length : 0);
  }
  if (size > 256 * 1024) errs.push({ type: 'FieldValueTooLong', field, message: 'must have at most 262144 bytes' });
  return errs;
}

export type NameValidator = (name: string) => string | null;

/** metadata checks every object gets: name (or generateName), namespace scope, labels, annotations. */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameValidator: NameValidator = isDNS1123Subdomain): FieldError[] {
  const errs: FieldError[] = [];
  if (!meta.name) {
    if (!meta.generateName) errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    const e = nameValidator(meta.name);
    if (e) errs.push(invalidValue('metadata.name', meta.name, e));
  }
  if (namespaced && !meta.namespace) errs.push(required('metadata.namespace'));
  if (!namespaced && meta.namespace) errs.push(forbiddenField('metadata.namespace', 'not allowed on this type'));
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences));
  if (meta.finalizers !== undefined) {
    for (const [i, f] of (meta.finalizers ?? []).entries()) {
      const e = isQualifiedName(f);
      if (e) errs.push(invalidValue(`metadata.finalizers[${i}]`, f, e));
    }
  }
  return errs;
}

/** Every owner reference names its owner fully (the garbage collector keys on uid); one controller at most. */
export function validateOwnerReferences(refs: unknown): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  const field = 'metadata.ownerReferences';
  let controllers = 0;
  for (const r of refs as Array<Record<string, unknown>>) {
    if (!r.apiVersion) errs.push(invalidValue(`${field}.apiVersion`, r.apiVersion ?? '', 'version must not be empty'));
    if (!r.kind) errs.push(invalidValue(`${field}.kind`, r.kind ?? '', 'kind must not be empty'));
    if (!r.name) errs.push(invalidValue(`${field}.name`, r.name ?? '', 'name must not be empty'));
    if (!r.uid) errs.push(invalidValue(`${field}.uid`, r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers++;
  }
  if (controllers > 1) errs.push(invalidValue(`${field}`, refs, 'Only one reference can have Controller set to true'));
  return errs;
}

/** A CIDR such as 10.244.1.0/24 or fd00::/64. */
export function isCIDR(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const [ip, bits, extra] = v.split('/');
  if (extra !== undefined || bits === undefined || !/^\d+$/.test(bits)) return false;
  if (isIP(ip) === 4) return Number(bits) <= 32;
  if (isIP(ip) === 6) return Number(bits) <= 128;
  return false;
}

export function validateNonNegative(v: unknown, field: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v !== 'number' || !Number.isInteger(v)) return [invalidValue(field, v, 'must be an integer')];
  return v < 0 ? [invalidValue(field, v, 'must be greater than or equal to 0')] : [];
}

export function validatePort(v: unknown, field: string): FieldError[] {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) return [invalidValue(field, v, 'must be between 1 and 65535, inclusive')];
  return [];
}
