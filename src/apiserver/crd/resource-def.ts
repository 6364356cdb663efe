// The ResourceDef of a custom resource, built from its CustomResourceDefinition: the generic
// registry then serves it like any built-in resource. Each served version decodes by its
// structural schema (prune, default, validate); objects convert between versions through a
// Converter (conversion None rewrites only apiVersion; a conversion webhook is asynchronous:
// its versions convert through VersionDef's prepare/toInternalAsync). Internal objects are the
// storage version's form.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/object.js';
import { pruneUnknownFields } from '../../api/fieldvalidation.js';
import { objectMeta } from '../../api/meta/v1/names.js';
import { validateObjectMeta } from '../../api/validation.js';
import { applyDefaults } from '../../api/apiextensions/defaulting.js';
import { prune } from '../../api/apiextensions/pruning.js';
import { validateValue } from '../../api/apiextensions/validate-value.js';
import { parseSimplePath, valueAt, setValueAt } from '../../api/apiextensions/jsonpath.js';
import { compileColumnPath, firstMatch } from '../../api/apiextensions/column-path.js';
import { isObject, type JSONSchemaProps } from '../../api/apiextensions/structural.js';
import type { CRDSpec, CRDVersion, CRDNames } from '../../api/apiextensions/validation.js';
import { humanAge, stripTypeMeta, statusStrategy } from '../registry/common.js';
import type { ResourceDef, ScaleDef, Strategy, TableColumn, VersionDef } from '../registry/types.js';
import { StatusError, type FieldError } from '../errors.js';
import { converterFor, noneConverter, type AnyConverter } from './conversion.js';
import type { AsyncConverter } from './conversion-webhook.js';
import type { ObjectReader } from '../admission/webhook/client.js';
import { hasRules, validationRuleErrors } from './validation-rules.js';

/** OpenAPI name of a custom resource kind: reversed group, version, kind (`com.example.stable.v1.CronTab`). */
export function crSchemaName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

export function servedNames(crd: KubeObject): CRDNames {
  const accepted = (crd.status as { acceptedNames?: CRDNames } | undefined)?.acceptedNames;
  return accepted?.plural && accepted.kind ? accepted : (crd.spec as unknown as CRDSpec).names;
}

const schemaOf = (v: CRDVersion | undefined): JSONSchemaProps => v?.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** What the CRD controller changes on a served resource without rebuilding it. */
export interface ServingState {
  /** The CRD is being deleted: no new objects (405, as upstream). */
  terminating: boolean;
}

/** `read` resolves a conversion webhook's service (needed for strategy Webhook). */
export function customResourceDef(crd: KubeObject, state: ServingState = { terminating: false }, read?: ObjectReader): ResourceDef {
  const spec = crd.spec as unknown as CRDSpec;
  const names = servedNames(crd);
  const group = spec.group;
  const storage = spec.versions.find((v) => v.storage)!;
  const converter = converterFor(spec, read);
  const versionDef = (v: CRDVersion): VersionDef => crVersion(spec, names, v, storage, converter);
  const served = spec.versions.filter((v) => v.served);
  const storageServed = served.some((v) => v.name === storage.name);
  const subresources = storage.subresources;
  const def: ResourceDef = {
    group, resource: names.plural, singular: names.singular || names.kind.toLowerCase(), kind: names.kind,
    listKind: names.listKind || `${names.kind}List`, namespaced: spec.scope === 'Namespaced',
    ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
    ...(names.categories?.length ? { categories: names.categories } : {}),
    versions: served.map(versionDef),
    storageVersion: storage.name,
    ...(storageServed ? {} : { storageCodec: { apiVersion: `${group}/${storage.name}`, version: versionDef(storage) } }),
    strategy: crStrategy(spec, !!subresources?.status, state, `${names.plural}.${group}`),
    storagePrefix: `/registry/${group}/${names.plural}/`,
    custom: true,
    fieldLabels: selectableFields(storage),
  };
  if ('async' in converter) def.convertStored = storedConversion(spec, storage, converter.async);
  if (subresources?.status) {
    const base = statusStrategy((o) => [...validateObject(spec, o), ...ruleErrors(spec, o)]);
    def.statusStrategy = { ...base, prepareForUpdate(o, old, ctx) { base.prepareForUpdate!(o, old, ctx); updating.set(o, old); } };
  }
  if (subresources?.scale) def.scale = scaleOf(subresources.scale);
  return def;
}

function crVersion(spec: CRDSpec, names: CRDNames, v: CRDVersion, storage: CRDVersion, anyConverter: AnyConverter): VersionDef {
  const schema = schemaOf(v);
  const storageSchema = schemaOf(storage);
  const apiVersion = `${spec.group}/${v.name}`;
  const common = {
    version: v.name,
    schemaName: crSchemaName(spec.group, v.name, names.kind),
    prune: (body: Record<string, unknown>) => pruneCustom(body, schema),
    ...(v.deprecated ? { deprecationWarning: v.deprecationWarning ?? `${spec.group}/${v.name} ${names.kind} is deprecated` } : {}),
    columns: columnsOf(v),
  };
  if ('async' in anyConverter && v.name !== storage.name) return webhookVersion(spec, common, schema, storageSchema, storage, anyConverter.async);
  const converter = 'sync' in anyConverter ? anyConverter.sync : noneConverter;
  return {
    // Read from storage or decoded from a request: defaulted in this version, converted to
    // the storage version, defaulted there (defaulting on read, as upstream).
    toInternal(o) {
      const obj = { ...structuredClone(o), apiVersion };
      applyDefaults(obj, schema);
      const stored = converter.convert(obj, `${spec.group}/${storage.name}`);
      applyDefaults(stored, storageSchema);
      return stripTypeMeta(stored);
    },
    fromInternal(o) {
      const obj = converter.convert({ ...structuredClone(o), apiVersion: `${spec.group}/${storage.name}` }, apiVersion);
      applyDefaults(obj, schema);
      return stripTypeMeta(obj);
    },
    ...common,
  };
}

/**
 * A version its conversion webhook converts. Objects for a response are converted ahead, in
 * one review per response (`prepare`), and remembered by identity for `fromInternal`; request
 * bodies convert through `toInternalAsync`. Defaults apply on both sides, as for None.
 */
function webhookVersion(spec: CRDSpec, common: Omit<VersionDef, 'toInternal' | 'fromInternal'>, schema: JSONSchemaProps, storageSchema: JSONSchemaProps, storage: CRDVersion, converter: AsyncConverter): VersionDef {
  const apiVersion = `${spec.group}/${common.version}`;
  const storageAPIVersion = `${spec.group}/${storage.name}`;
  const converted = new WeakMap<KubeObject, KubeObject>();
  const notPrepared = () => new StatusError(500, 'InternalError', `conversion webhook for ${storageAPIVersion}, Kind=${spec.names.kind}: this request cannot be served in ${apiVersion} yet (only get, list, create, update, patch and delete convert through the webhook)`);
  return {
    ...common,
    async prepare(objs) {
      const todo = objs.filter((o) => !converted.has(o));
      if (!todo.length) return;
      const out = await converter.convertMany(todo.map((o) => ({ ...structuredClone(o), apiVersion: storageAPIVersion, kind: spec.names.kind })), apiVersion);
      todo.forEach((o, i) => {
        const obj = out[i];
        applyDefaults(obj, schema);
        converted.set(o, stripTypeMeta(obj));
      });
    },
    fromInternal(o) {
      const hit = converted.get(o);
      if (!hit) throw notPrepared();
      return structuredClone(hit);
    },
    async toInternalAsync(o) {
      const obj = { ...structuredClone(o), apiVersion, kind: spec.names.kind };
      applyDefaults(obj, schema);
      const [stored] = await converter.convertMany([obj], storageAPIVersion);
      applyDefaults(stored, storageSchema);
      return stripTypeMeta(stored);
    },
    toInternal() {
      throw notPrepared();
    },
  };
}

/**
 * Objects stored before the storage version changed, converted by the webhook to the current
 * one (None needs no I/O: the storage version's toInternal rewrites apiVersion).
 */
function storedConversion(spec: CRDSpec, storage: CRDVersion, converter: AsyncConverter): (objs: KubeObject[]) => Promise<KubeObject[]> {
  const schema = schemaOf(storage);
  return async (objs) => (await converter.convertMany(objs, `${spec.group}/${storage.name}`)).map((o) => {
    applyDefaults(o, schema);
    return stripTypeMeta(o);
  });
}

/** The structural schema's pruning, and ObjectMeta's at the root and in embedded resources. */
function pruneCustom(body: Record<string, unknown>, schema: JSONSchemaProps) {
  const object = structuredClone(body);
  const { removed, embeddedMetadata } = prune(object, schema);
  const unknown = [...removed];
  const invalid: { path: string; message: string }[] = [];
  for (const path of ['metadata', ...embeddedMetadata]) {
    const parts = parseSimplePath(`.${path}`);
    const meta = parts && valueAt(object, parts);
    if (!parts || !isObject(meta)) continue;
    const r = pruneUnknownFields(meta, objectMeta());
    setValueAt(object, parts, r.object);
    unknown.push(...r.unknown.map((u) => `${path}.${u}`));
    invalid.push(...r.invalid.map((i) => ({ path: `${path}.${i.path}`, message: i.message.replace(`field ${i.path}`, `field ${path}.${i.path}`) })));
  }
  return { object, unknown, invalid };
}

function validateObject(spec: CRDSpec, o: KubeObject): FieldError[] {
  // Validated in the storage version's schema: internal objects are in its form.
  const storage = spec.versions.find((v) => v.storage);
  const errs = validateValue(o, schemaOf(storage));
  return errs.filter((e) => !/^(apiVersion|kind|metadata)(\.|$)/.test(e.field));
}

// The stored object of an update, from prepareForUpdate to validate (the same object passes
// through both), so transition rules see oldSelf; a create has none.
const updating = new WeakMap<KubeObject, KubeObject>();

/** x-kubernetes-validations of the storage version's schema (internal objects are in its form). */
function ruleErrors(spec: CRDSpec, o: KubeObject): FieldError[] {
  const schema = schemaOf(spec.versions.find((v) => v.storage));
  return hasRules(schema) ? validationRuleErrors(schema, o, updating.get(o)) : [];
}

function crStrategy(spec: CRDSpec, hasStatus: boolean, state: ServingState, resource: string): Strategy {
  const nonMeta = (o: KubeObject) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'metadata' && !(hasStatus && k === 'status')));
  return {
    prepareForCreate(o) {
      if (state.terminating) throw new StatusError(405, 'MethodNotAllowed', `create is not supported on resources of kind "${resource}"`, { group: spec.group, kind: resource.split('.')[0] });
      if (hasStatus) delete o.status;
      o.metadata.generation = 1;
    },
    prepareForUpdate(o, old) {
      updating.set(o, old);
      if (hasStatus) {
        if (old.status === undefined) delete o.status;
        else o.status = old.status;
      }
      // Every change outside metadata (and status, when it is a subresource) is a new generation.
      if (!isDeepStrictEqual(nonMeta(o), nonMeta(old))) o.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    validate(o) {
      const errs = validateObject(spec, o);
      errs.push(...embeddedMetadataErrors(spec, o));
      // Rules run only on a value that passed the schema, as upstream.
      if (!errs.length) errs.push(...ruleErrors(spec, o));
      return errs;
    },
  };
}

/** Embedded resources' metadata is validated as ObjectMeta (names optional). */
function embeddedMetadataErrors(spec: CRDSpec, o: KubeObject): FieldError[] {
  const storage = spec.versions.find((v) => v.storage);
  const errs: FieldError[] = [];
  const visit = (v: unknown, s: JSONSchemaProps, path: string): void => {
    if (Array.isArray(v)) { const items = Array.isArray(s.items) ? undefined : s.items; if (items) v.forEach((x, i) => visit(x, items, `${path}[${i}]`)); return; }
    if (!isObject(v)) return;
    if (path && s['x-kubernetes-embedded-resource'] && isObject(v.metadata)) {
      const meta = v.metadata as KubeObject['metadata'];
      if (meta.name || meta.generateName) {
        errs.push(...validateObjectMeta(meta, false).filter((e) => !e.field.endsWith('.namespace')).map((e) => ({ ...e, field: `${path}.${e.field}` })));
      }
    }
    for (const [k, p] of Object.entries(s.properties ?? {})) if (k in v) visit(v[k], p, path ? `${path}.${k}` : k);
  };
  visit(o, schemaOf(storage), '');
  return errs;
}

function scaleOf(scale: NonNullable<NonNullable<CRDVersion['subresources']>['scale']>): ScaleDef {
  const specPath = parseSimplePath(scale.specReplicasPath)!;
  const statusPath = parseSimplePath(scale.statusReplicasPath)!;
  const selectorPath = scale.labelSelectorPath ? parseSimplePath(scale.labelSelectorPath) : null;
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return {
    replicas: (o) => num(valueAt(o, specPath)),
    setReplicas: (o, n) => setValueAt(o as Record<string, unknown>, specPath, n),
    statusReplicas: (o) => num(valueAt(o, statusPath)),
    selector: (o) => { const v = selectorPath ? valueAt(o, selectorPath) : undefined; return typeof v === 'string' ? v : ''; },
  };
}

function selectableFields(v: CRDVersion): ((o: KubeObject) => Record<string, string>) | undefined {
  const fields = (v.selectableFields ?? []).map((f) => ({ name: f.jsonPath.replace(/^\./, ''), parts: parseSimplePath(f.jsonPath) }));
  if (!fields.length) return undefined;
  return (o) => Object.fromEntries(fields.map((f) => {
    const value = f.parts ? valueAt(o, f.parts) : undefined;
    return [f.name, value === undefined || value === null ? '' : String(value)];
  }));
}

const ageColumn: TableColumn = { name: 'Age', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0, cell: (o, now) => humanAge(o.metadata.creationTimestamp, now) };

function columnsOf(v: CRDVersion): TableColumn[] {
  const defs = v.additionalPrinterColumns ?? [];
  if (!defs.length) return [ageColumn];
  return defs.map((c) => {
    const steps = compileColumnPath(c.jsonPath);
    return {
      name: c.name, type: c.type as TableColumn['type'], format: c.format, description: c.description ?? '', priority: c.priority ?? 0,
      cell: (o, now) => cellValue(steps ? firstMatch(o, steps) : undefined, c.type, now),
    };
  });
}

function cellValue(v: unknown, type: string, now: Date): string | number | boolean {
  // A missing value is a null cell, which kubectl prints as <none>.
  if (v === undefined || v === null) return null as unknown as string;
  // Dates print as ages, as upstream's table convertor renders them.
  if (type === 'date') return typeof v === 'string' ? humanAge(v, now) : '<unknown>';
  if (type === 'integer' || type === 'number') return typeof v === 'number' ? v : (null as unknown as number);
  if (type === 'boolean') return typeof v === 'boolean' ? v : (null as unknown as boolean);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

