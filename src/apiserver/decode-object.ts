// Turning a decoded request body into an internal object: check apiVersion and kind against
// the endpoint, apply fieldValidation (Strict, Warn, Ignore) against the version's schema,
// run the version's defaults, convert to the internal version.
import type { KubeObject } from '../api/object.js';
import { apiVersionOf, isPlainObject } from '../api/object.js';
import { pruneUnknownFields } from '../api/fieldvalidation.js';
import { ref } from '../api/schema.js';
import { badRequest, invalid as invalidObject } from './errors.js';
import type { GenericRegistry, VersionDef } from './registry/index.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(v: string | null): FieldValidation {
  if (v === null || v === '' || v === 'Warn') return 'Warn';
  if (v === 'Strict' || v === 'Ignore') return v;
  throw badRequest(`fieldValidation parameter unsupported: ${v}. Accepted values are: Ignore, Warn, Strict`);
}

/**
 * Duplicate fields in a request body (`duplicate field "replicas"`): 400 with Strict, warnings
 * with Warn, nothing with Ignore, as Kubernetes' strict decoder.
 */
export function duplicateFieldWarnings(duplicates: string[], validation: FieldValidation): string[] {
  if (!duplicates.length || validation === 'Ignore') return [];
  if (validation === 'Strict') throw badRequest(`strict decoding error: ${duplicates.join(', ')}`);
  return duplicates;
}

export interface DecodeResult {
  object: KubeObject;
  warnings: string[];
}

/**
 * Versioned wire object → pruned, version-defaulted, internal object. A value of the wrong
 * type or out of its integer format's range is 400 (Kubernetes' decoder refuses it), or 422
 * with `patched` (the result of a patch).
 * `kind`/`schemaName` default to the registry's own (subresources such as Scale pass theirs).
 */
export function decodeVersioned(
  reg: GenericRegistry,
  version: VersionDef,
  body: unknown,
  validation: FieldValidation,
  opts: { kind?: string; apiVersion?: string; schemaName?: string; convert?: boolean; patched?: boolean } = {},
): DecodeResult {
  if (!isPlainObject(body)) throw badRequest('the body of the request must be a JSON object');
  const kind = opts.kind ?? reg.def.kind;
  const apiVersion = opts.apiVersion ?? apiVersionOf(reg.def.group, version.version);
  if (body.kind !== undefined && body.kind !== kind) {
    throw badRequest(`the object provided is unrecognized (must be of type ${kind}): kind is ${JSON.stringify(body.kind)}`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  if (body.metadata !== undefined && !isPlainObject(body.metadata)) throw badRequest('metadata must be an object');
  const { object, unknown, invalid } = version.prune && !opts.schemaName ? version.prune(body) : pruneUnknownFields(body, ref(opts.schemaName ?? version.schemaName));
  if (invalid.length) {
    const detail = invalid.map((i) => `${i.path}: ${i.message}`).join(', ');
    // A patch whose result does not decode did not fit the object: 422, as Kubernetes answers.
    if (opts.patched) {
      const name = isPlainObject(body.metadata) && typeof body.metadata.name === 'string' ? body.metadata.name : '';
      throw invalidObject(kind, reg.def.group, name, [{ type: 'FieldValueInvalid', field: 'patch', message: detail }]);
    }
    throw badRequest(`${kind} in version "${version.version}" cannot be handled as a ${kind}: ${detail}`);
  }
  const warnings: string[] = [];
  if (unknown.length) {
    if (validation === 'Strict') {
      const list = unknown.map((f) => `unknown field "${f}"`);
      throw badRequest(`strict decoding error: ${list.join(', ')}`);
    }
    if (validation === 'Warn') warnings.push(...unknown.map((f) => `unknown field "${f}"`));
  }
  const obj = object as KubeObject;
  obj.metadata ??= {};
  if (opts.convert === false) return { object: obj, warnings };
  version.defaults?.(obj);
  return { object: version.toInternal(obj), warnings };
}
