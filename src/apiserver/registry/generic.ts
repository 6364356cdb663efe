// The generic registry: one implementation of get/list/create/update/delete for every
// resource, running the resource's strategy in a fixed order, after k8s.io/apiserver's
// `registry/generic/registry.Store`. Objects here are internal; conversion to and from the
// storage version happens only at the storage boundary.
import { randomUUID, randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf, deepCopy } from '../../api/object.js';
import { rfc3339 } from '../../api/time.js';
import { invalidValue, validateObjectMeta } from '../../api/validation.js';
import { fieldsMatch, matches, type FieldRequirement, type Selector } from '../../api/labels.js';
import { CompactedError, ConflictError, KeyExistsError, NotFoundError, type KeyValue, type ListOptions as StoreListOptions, type ListResult as StoreListResult, type Store } from '../../storage/store.js';
import { alreadyExists, badRequest, conflict, expired, internalError, invalid, notFound, StatusError, type FieldError } from '../errors.js';
import { identity, TransformError, type ValueTransformer } from '../encryption/index.js';
import { resourcePrefix, storageKey, type RequestContext, type ResourceDef, type Strategy, type VersionDef } from './types.js';
import { now, traceOf, traced, tracedWrite } from '../trace/request-trace.js';

export interface ListOptions {
  namespace?: string;
  labelSelector?: Selector;
  fieldSelector?: FieldRequirement[];
  limit?: number;
  continueToken?: string;
  /** Read the state as of exactly this revision from storage (resourceVersionMatch=Exact). */
  revision?: number;
  /** Where the first page comes from (the watch cache); continuations always read storage. */
  source?: ListSource;
  /** Decodes each item instead of a fresh decode (shared, read-only objects: `encoded-once.ts`). */
  decode?: (kv: KeyValue) => KubeObject;
}

/**
 * Something a list can be read from: the store, or the watch cache. A source may return more
 * items than `limit` asks for; the list cuts them.
 */
export interface ListSource {
  list(prefix: string, opts?: StoreListOptions): Promise<StoreListResult>;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  object: KubeObject;
  /** False when the object still exists (graceful deletion or pending finalizers). */
  deleted: boolean;
}

export type UpdateFn = (current: KubeObject) => KubeObject | Promise<KubeObject>;

const nameSuffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

const continueVersion = 'meta.k8s.io/v1';

export class GenericRegistry {
  readonly prefix: string;
  private readonly storageVersionDef: VersionDef;
  private readonly storageAPIVersion: string;
  /** Objects decoded as stored under an earlier storage version, for convertStored: their apiVersion. */
  private readonly outdated = new WeakMap<KubeObject, string>();

  /** `transformer` turns stored bytes into the object's JSON and back (encryption at rest). */
  constructor(readonly def: ResourceDef, readonly store: Store, private readonly transformer: ValueTransformer = identity) {
    this.prefix = resourcePrefix(def);
    const sv = def.storageCodec?.version ?? def.versions.find((v) => v.version === def.storageVersion);
    if (!sv) throw new Error(`${def.resource}: storage version ${def.storageVersion} is not among its versions`);
    this.storageVersionDef = sv;
    this.storageAPIVersion = def.storageCodec?.apiVersion ?? apiVersionOf(def.group, def.storageVersion);
  }

  key(namespace: string | undefined, name: string): string {
    return storageKey(this.def, namespace, name);
  }

  version(v: string): VersionDef | undefined {
    return this.def.versions.find((d) => d.version === v);
  }

  /**
   * The internal object behind the value stored at `key`, with resourceVersion from the
   * revision. An unreadable value (a key no longer configured) is a 500 for this object only.
   */
  decode(value: Buffer, modRevision: number, key: string): KubeObject {
    return this.read(value, modRevision, key).obj;
  }

  /** `stale`: written by other than the current write provider or storage version, so an update must rewrite it. */
  private read(value: Buffer, modRevision: number, key: string): { obj: KubeObject; stale: boolean } {
    let plain: { data: Buffer; stale: boolean };
    try {
      plain = this.transformer.fromStorage(value, key);
    } catch (e) {
      if (e instanceof TransformError) throw internalError(`unable to transform key "${key}": ${e.message}`);
      throw e;
    }
    let stored: KubeObject;
    try {
      stored = JSON.parse(plain.data.toString('utf8')) as KubeObject;
    } catch (e) {
      // Bytes that are not JSON (aescbc has no MAC: a tampered value may still unpad) fail
      // this object alone, never a watch cache feeding other watchers.
      throw internalError(`unable to decode the object stored at "${key}": ${(e as Error).message}`);
    }
    // An object stored under an earlier storage version is rewritten by any update, even an
    // unchanged one (how storage version migration works upstream).
    const earlier = stored.apiVersion !== this.storageAPIVersion;
    let obj: KubeObject;
    if (earlier && this.def.convertStored) {
      const { apiVersion, kind: _kind, ...rest } = stored;
      obj = rest as KubeObject;
      this.outdated.set(obj, String(apiVersion));
    } else {
      obj = this.storageVersionDef.toInternal(stored);
    }
    obj.metadata.resourceVersion = String(modRevision);
    return { obj, stale: plain.stale || earlier };
  }

  /**
   * `objs` with those decoded under an earlier storage version converted (one convertStored
   * call); every object a caller uses passes here after decode.
   */
  async current(objs: KubeObject[]): Promise<KubeObject[]> {
    const todo = objs.filter((o) => this.outdated.has(o));
    if (!todo.length || !this.def.convertStored) return objs;
    const converted = await this.def.convertStored(todo.map((o) => ({ ...deepCopy(o), apiVersion: this.outdated.get(o)!, kind: this.def.kind })));
    const byObject = new Map(todo.map((o, i) => [o, converted[i]]));
    return objs.map((o) => {
      const c = byObject.get(o);
      if (!c) return o;
      c.metadata.resourceVersion = o.metadata.resourceVersion;
      return c;
    });
  }

  /** The bytes to store at `key`: the storage version's JSON, through the transformer. */
  encode(obj: KubeObject, key: string): Buffer {
    // Conversions never mutate their input (see toVersion): only the metadata the bytes leave
    // resourceVersion out of is copied, not the whole object.
    const versioned = { apiVersion: this.storageAPIVersion, kind: this.def.kind, ...this.storageVersionDef.fromInternal(obj) };
    const { resourceVersion: _rv, ...metadata } = versioned.metadata;
    versioned.metadata = metadata;
    try {
      return this.transformer.toStorage(Buffer.from(JSON.stringify(versioned)), key);
    } catch (e) {
      if (e instanceof TransformError) throw internalError(`unable to transform key "${key}": ${e.message}`);
      throw e;
    }
  }

  /** Internal → the given version, with apiVersion and kind set. */
  toVersion(obj: KubeObject, version: string): KubeObject {
    const vd = this.version(version);
    if (!vd) throw new Error(`${this.def.resource} has no version ${version}`);
    // Conversions build new objects and never mutate their input, so no copy is needed here.
    const out = vd.fromInternal(obj);
    return { apiVersion: apiVersionOf(this.def.group, version), kind: this.def.kind, ...out };
  }

  private decodeKV(kv: KeyValue): KubeObject {
    return this.decode(kv.value, kv.modRevision, kv.key);
  }

  /** `source` is the store unless the caller reads from the watch cache. */
  async get(namespace: string | undefined, name: string, source: Pick<Store, 'get'> = this.store): Promise<KubeObject> {
    const kv = await source.get(this.key(namespace, name));
    if (!kv) throw notFound(this.def.resource, this.def.group, name);
    return (await this.current([this.decodeKV(kv)]))[0];
  }

  /** The selectable fields of an object (metadata.name, metadata.namespace, and the resource's own). */
  fieldSet(obj: KubeObject): Record<string, string> {
    const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
    if (this.def.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
    return { ...fields, ...(this.def.fieldLabels?.(obj) ?? {}) };
  }

  /** Rejects field selectors on fields this resource cannot select by. */
  checkFieldSelector(reqs: FieldRequirement[] | undefined): void {
    if (!reqs?.length) return;
    const sample: KubeObject = { metadata: {} };
    const known = new Set(Object.keys(this.fieldSet(sample)));
    for (const r of reqs) {
      if (!known.has(r.field)) throw badRequest(`field label not supported: ${r.field}`);
    }
  }

  matches(obj: KubeObject, labelSelector?: Selector, fieldSelector?: FieldRequirement[]): boolean {
    if (labelSelector?.length && !matches(labelSelector, obj.metadata.labels)) return false;
    if (fieldSelector?.length && !fieldsMatch(fieldSelector, this.fieldSet(obj))) return false;
    return true;
  }

  listPrefix(namespace?: string): string {
    return this.def.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  async list(opts: ListOptions): Promise<ListResult> {
    this.checkFieldSelector(opts.fieldSelector);
    const prefix = this.listPrefix(opts.namespace);
    let startAfter: string | undefined;
    let revision = opts.revision ?? 0;
    let source: ListSource = opts.source ?? this.store;
    if (opts.continueToken) {
      const tok = decodeContinue(opts.continueToken);
      startAfter = prefix + tok.start;
      revision = tok.rv;
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    // Only an unfiltered list knows how many objects are left, as upstream reports it.
    const count = limit > 0 && !opts.labelSelector?.length && !opts.fieldSelector?.length;
    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    let more = false;
    let remaining: number | undefined;
    for (;;) {
      let page;
      try {
        page = await source.list(prefix, { limit: limit ? Math.max(limit - items.length, 100) : 0, startAfter, revision, count });
      } catch (e) {
        if (e instanceof CompactedError && !opts.continueToken) throw expired('The resourceVersion for the provided list is too old.');
        if (e instanceof CompactedError) throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
        throw e;
      }
      revision = page.revision;
      source = this.store;
      const decoded = await this.current(page.items.map((kv) => (opts.decode ? opts.decode(kv) : this.decodeKV(kv))));
      let i = 0;
      for (; i < page.items.length; i++) {
        const kv = page.items[i];
        lastKey = kv.key;
        const obj = decoded[i];
        if (!this.matches(obj, opts.labelSelector, opts.fieldSelector)) continue;
        items.push(obj);
        if (limit && items.length >= limit) { i++; break; }
      }
      if (limit && items.length >= limit) {
        more = i < page.items.length || page.more;
        if (page.count !== undefined) remaining = page.count - i;
        break;
      }
      if (!page.more) break;
      startAfter = lastKey;
    }
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (more && lastKey) {
      result.continueToken = encodeContinue(revision, lastKey.slice(prefix.length));
      if (remaining !== undefined) result.remainingItemCount = remaining;
    }
    return result;
  }

  /**
   * `owned`: the caller hands `input` over (a request's own decoding, used for nothing else),
   * so it is prepared in place instead of copied first. Not for a generateName, whose retry
   * starts again from the input.
   */
  async create(input: KubeObject, ctx: RequestContext, opts: { owned?: boolean } = {}): Promise<KubeObject> {
    const obj = opts.owned && !input.metadata?.generateName ? input : deepCopy(input);
    const meta = obj.metadata ?? (obj.metadata = {});
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generateName(meta.generateName as string);
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(ctx.now);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (obj.spec !== undefined) meta.generation = 1;
    else delete meta.generation;
    const strategy = this.def.strategy;
    const validating = now();
    strategy.prepareForCreate?.(obj, ctx);
    strategy.defaults?.(obj);
    strategy.canonicalize?.(obj);
    this.validateOrThrow(obj, [...validateObjectMeta(meta, this.def.namespaced, this.def.nameValidator), ...strategy.validate(obj, ctx), ...(strategy.validateCreate?.(obj, ctx) ?? [])]);
    await this.def.hooks?.checkWrite?.(obj, undefined, ctx);
    traceOf(ctx)?.add('validation', validating);
    if (ctx.dryRun) return { ...obj, metadata: { ...obj.metadata } };

    await this.def.hooks?.beforeCreate?.(obj, ctx, this.store);
    try {
      const key = this.key(meta.namespace, meta.name as string);
      const rev = await tracedWrite(ctx, 'create', () => this.store.create(key, this.encode(obj, key)), (r) => r);
      obj.metadata.resourceVersion = String(rev);
      return obj;
    } catch (e) {
      await this.def.hooks?.createFailed?.(obj, this.store);
      if (e instanceof KeyExistsError) {
        if (generated) return this.create({ ...input, metadata: { ...input.metadata, name: undefined } }, ctx);
        throw alreadyExists(this.def.resource, this.def.group, meta.name as string);
      }
      throw e;
    }
  }

  private isFinalized(obj: KubeObject): boolean {
    return this.def.isFinalized ? this.def.isFinalized(obj) : !(obj.metadata.finalizers ?? []).length;
  }

  private validateOrThrow(obj: KubeObject, errs: FieldError[]): void {
    if (errs.length) throw invalid(this.def.kind, this.def.group, obj.metadata.name ?? obj.metadata.generateName ?? '', errs);
  }

  /**
   * Read-modify-write with optimistic concurrency. `fn` gets the current object and returns
   * the desired one; if the desired object names a resourceVersion it must be current (else
   * 409), otherwise a concurrent write is retried transparently.
   *
   * `guess` (the watch cache) is read for the current object first, as upstream's
   * GuaranteedUpdate takes the cacher's copy: the write is conditional on the revision read, so
   * a stale guess costs a conflict and a read of storage, never a lost update; a guess that
   * misses the object or contradicts the sent resourceVersion is checked against storage.
   */
  async update(namespace: string | undefined, name: string, fn: UpdateFn, ctx: RequestContext, subresource = '', guess?: Pick<Store, 'get'>): Promise<KubeObject> {
    const strategy = this.strategyFor(subresource);
    let source: Pick<Store, 'get'> = guess ?? this.store;
    for (let attempt = 0; ; attempt++) {
      const guessed = source !== this.store;
      const kv = await traced(ctx, 'storage.get', () => source.get(this.key(namespace, name)));
      source = this.store;
      if (!kv && guessed) continue;
      if (!kv) throw notFound(this.def.resource, this.def.group, name);
      const { obj: read, stale } = this.read(kv.value, kv.modRevision, kv.key);
      const [old] = await this.current([read]);
      // Whether storage still holds what was read: a refusal (or a no-op) judged on a guess
      // stands only if so, as no conditional write checks it.
      const guessHolds = async () => !guessed || (await this.store.get(kv.key))?.modRevision === kv.modRevision;
      let obj: KubeObject, preconditionRV: string | undefined;
      try {
        const desired = deepCopy(await fn(deepCopy(old)));
        preconditionRV = desired.metadata?.resourceVersion;
        if (preconditionRV && preconditionRV !== old.metadata.resourceVersion) {
          throw conflict(this.def.resource, this.def.group, name, 'the object has been modified; please apply your changes to the latest version and try again');
        }
        const validating = now();
        obj = this.prepareUpdate(desired, old, strategy, ctx, name, namespace);
        traceOf(ctx)?.add('validation', validating);
      } catch (e) {
        if (!(await guessHolds())) continue;
        throw e;
      }
      // An unchanged object is not written again, unless it is stored under an older key or
      // provider: rewriting is how `kubectl replace` re-encrypts after a rotation.
      if (sameObject(obj, old) && !stale) {
        if (!(await guessHolds())) continue;
        return old;
      }
      if (obj.metadata.deletionTimestamp && this.isFinalized(obj) && !old.metadata.deletionGracePeriodSeconds) {
        return (await this.deleteNow(old, kv.modRevision, ctx)).object;
      }
      await this.def.hooks?.checkWrite?.(obj, old, ctx);
      if (ctx.dryRun) return obj;
      await this.def.hooks?.beforeUpdate?.(obj, old, ctx, this.store);
      try {
        const rev = await tracedWrite(ctx, 'update', () => this.store.update(kv.key, this.encode(obj, kv.key), kv.modRevision), (r) => r);
        obj.metadata.resourceVersion = String(rev);
      } catch (e) {
        await this.def.hooks?.updateFailed?.(obj, old, this.store);
        if (e instanceof ConflictError && (!preconditionRV || guessed) && attempt < 20) continue;
        if (e instanceof ConflictError) throw conflict(this.def.resource, this.def.group, name, 'the object has been modified; please apply your changes to the latest version and try again');
        if (e instanceof NotFoundError) throw notFound(this.def.resource, this.def.group, name);
        throw e;
      }
      await this.def.hooks?.afterUpdate?.(obj, old, this.store);
      return obj;
    }
  }

  private strategyFor(subresource: string): Strategy {
    if (!subresource) return this.def.strategy;
    const s = subresource === 'status' ? this.def.statusStrategy : this.def.subresourceStrategies?.[subresource];
    if (!s) throw new Error(`${this.def.resource} has no writable subresource ${subresource}`);
    return s;
  }

  private prepareUpdate(desired: KubeObject, old: KubeObject, strategy: Strategy, ctx: RequestContext, name: string, namespace?: string): KubeObject {
    const meta = desired.metadata ?? (desired.metadata = {});
    if (meta.name && meta.name !== name) throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    if (this.def.namespaced && meta.namespace && meta.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.name = name;
    if (this.def.namespaced) meta.namespace = namespace;
    // A uid that was sent must be the object's own: it is immutable (an update meant for an
    // object that was deleted and re-created must not land on its successor).
    const sentUID = meta.uid;
    // Fields the server owns are carried over from the stored object, whatever was sent.
    meta.uid = old.metadata.uid;
    meta.creationTimestamp = old.metadata.creationTimestamp;
    meta.resourceVersion = old.metadata.resourceVersion;
    if (old.metadata.deletionTimestamp) {
      meta.deletionTimestamp = old.metadata.deletionTimestamp;
      meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    meta.generation = old.metadata.generation;
    if (meta.generation === undefined) delete meta.generation;
    strategy.prepareForUpdate?.(desired, old, ctx);
    strategy.defaults?.(desired);
    strategy.canonicalize?.(desired);
    if (old.metadata.generation !== undefined && !isDeepStrictEqual(desired.spec, old.spec)) {
      desired.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    if (old.metadata.deletionTimestamp) {
      // A terminating object may only lose finalizers, never gain new ones.
      const added = (desired.metadata.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
      if (added.length) throw invalid(this.def.kind, this.def.group, name, [{ type: 'FieldValueForbidden', field: 'metadata.finalizers', message: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` }]);
    }
    this.validateOrThrow(desired, [
      ...(sentUID && sentUID !== old.metadata.uid ? [invalidValue('metadata.uid', sentUID, 'field is immutable')] : []),
      ...validateObjectMeta(desired.metadata, this.def.namespaced, this.def.nameValidator),
      ...strategy.validate(desired, ctx),
      ...(strategy.validateUpdate?.(desired, old, ctx) ?? []),
    ]);
    return desired;
  }

  async delete(namespace: string | undefined, name: string, opts: DeleteOptions, ctx: RequestContext): Promise<DeleteResult> {
    for (let attempt = 0; ; attempt++) {
      const kv = await traced(ctx, 'storage.get', () => this.store.get(this.key(namespace, name)));
      if (!kv) throw notFound(this.def.resource, this.def.group, name);
      const [old] = await this.current([this.decodeKV(kv)]);
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== old.metadata.uid) throw conflict(this.def.resource, this.def.group, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`);
      if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) throw conflict(this.def.resource, this.def.group, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`);

      const next = deepCopy(old);
      const meta = next.metadata;
      const finalizers = new Set(meta.finalizers ?? []);
      if (opts.propagationPolicy === 'Orphan') finalizers.add('orphan');
      if (opts.propagationPolicy === 'Foreground') finalizers.add('foregroundDeletion');
      if (opts.propagationPolicy === 'Background') { finalizers.delete('orphan'); finalizers.delete('foregroundDeletion'); }
      if (finalizers.size) meta.finalizers = [...finalizers];
      else delete meta.finalizers;

      const grace = this.def.gracePeriod?.(old, opts.gracePeriodSeconds);
      const handledByResource = this.def.onDelete?.(next, ctx.now) ?? false;
      const nowStamp = rfc3339(ctx.now);
      if (grace !== undefined && grace > 0) {
        const deadline = rfc3339(new Date(ctx.now.getTime() + grace * 1000));
        if (!meta.deletionTimestamp || (meta.deletionGracePeriodSeconds ?? Infinity) > grace) {
          meta.deletionTimestamp = deadline;
          meta.deletionGracePeriodSeconds = grace;
        }
      } else if (finalizers.size || handledByResource || !this.isFinalized(next)) {
        meta.deletionTimestamp ??= nowStamp;
        meta.deletionGracePeriodSeconds ??= 0;
        if (grace === 0) meta.deletionGracePeriodSeconds = 0;
      } else {
        try {
          return await this.deleteNow(old, kv.modRevision, ctx);
        } catch (e) {
          if (e instanceof ConflictError && attempt < 20) continue;
          throw e;
        }
      }
      if (meta.deletionTimestamp && !old.metadata.deletionTimestamp && meta.generation !== undefined) meta.generation += 1;
      if (sameObject(next, old)) return { object: old, deleted: false };
      if (ctx.dryRun) return { object: next, deleted: false };
      try {
        const rev = await tracedWrite(ctx, 'update', () => this.store.update(kv.key, this.encode(next, kv.key), kv.modRevision), (r) => r);
        next.metadata.resourceVersion = String(rev);
        return { object: next, deleted: false };
      } catch (e) {
        if (e instanceof ConflictError && attempt < 20) continue;
        throw e;
      }
    }
  }

  private async deleteNow(old: KubeObject, modRevision: number, ctx: RequestContext): Promise<DeleteResult> {
    if (ctx.dryRun) return { object: old, deleted: true };
    const key = this.key(old.metadata.namespace, old.metadata.name as string);
    try {
      const { revision } = await tracedWrite(ctx, 'delete', () => this.store.delete(key, modRevision), (r) => r.revision);
      await this.def.hooks?.afterDelete?.(old, this.store);
      return { object: { ...old, metadata: { ...old.metadata, resourceVersion: String(revision) } }, deleted: true };
    } catch (e) {
      if (e instanceof NotFoundError) throw notFound(this.def.resource, this.def.group, old.metadata.name as string);
      throw e;
    }
  }
}

function sameObject(a: KubeObject, b: KubeObject): boolean {
  return isDeepStrictEqual(a, b);
}

export function generateName(base: string): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += nameSuffixAlphabet[randomInt(nameSuffixAlphabet.length)];
  return `${base.slice(0, 58)}${s}`;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: continueVersion, rv, start })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v?: string; rv?: number; start?: string };
    if (t.v !== continueVersion || typeof t.rv !== 'number' || typeof t.start !== 'string' || t.start.includes('..')) throw new Error('bad');
    return { rv: t.rv, start: t.start };
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export { StatusError };
