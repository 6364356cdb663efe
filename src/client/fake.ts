// An in-memory API for unit tests of controllers, the scheduler and agents: the same
// ResourceAPI as the HTTPS client, with resourceVersions, conflicts, label/field selectors,
// merge patches, finalizers and watches, so informers run against it unchanged. It records
// every write as an action for assertions. Not a second API server: no validation, no
// defaults beyond metadata.
import { randomUUID } from 'node:crypto';
import type { KubeObject, ObjectBase } from '../api/object.js';
import { fieldsMatch, matches, parseFieldSelector, parseSelector } from '../api/labels.js';
import { rfc3339 } from '../api/time.js';
import { APIError } from './errors.js';
import { apiVersion, type ResourceType } from './resources.js';
import type { WatchEventRaw, WatchHandle } from './rest.js';
import type { ClientsetAPI, DeleteOptions, ListOptions, ObjectList, PatchType, ResourceAPI, WatchOptions } from './typed.js';
import { realClock, type Clock } from './clock.js';

export interface FakeAction {
  verb: 'create' | 'update' | 'patch' | 'delete' | 'create-subresource';
  resource: string;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
}

interface StoredEvent { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; key: string; object: KubeObject }

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Fields fake field selectors understand (enough for controllers and agents). */
function fieldSet(obj: KubeObject): Record<string, string> {
  return {
    'metadata.name': obj.metadata.name ?? '', 'metadata.namespace': obj.metadata.namespace ?? '',
    'spec.nodeName': obj.spec?.nodeName ?? '', 'status.phase': obj.status?.phase ?? '',
    'spec.schedulerName': obj.spec?.schedulerName ?? '', type: typeof obj.type === 'string' ? obj.type : '',
  };
}

export class FakeClientset implements ClientsetAPI {
  private objects = new Map<string, KubeObject>();
  private events: StoredEvent[] = [];
  private watchers = new Set<{ prefix: string; push: (e: StoredEvent) => void; pending: () => boolean }>();
  private idleWaiters: (() => void)[] = [];
  private rv = 1;
  readonly actions: FakeAction[] = [];
  /** Make the next matching write fail (verb, resource) → error; for retry tests. */
  readonly failures: { verb: FakeAction['verb']; resource: string; error: Error; times: number }[] = [];

  constructor(private clock: Clock = realClock) {}

  resource<T extends ObjectBase>(type: ResourceType<T>): ResourceAPI<T> {
    // The fake stores plain JSON whatever the kind; the type is the caller's view of it.
    return new FakeResource(this, type as ResourceType) as unknown as ResourceAPI<T>;
  }

  close(): void {
    for (const w of this.watchers) w.push({ rv: -1, type: 'DELETED', key: '', object: { metadata: {} } });
    this.watchers.clear();
    this.wakeIdle();
  }

  /**
   * Resolves once every open watch has handed out all its events and its consumer has asked
   * for the next one (an informer's handlers have run for everything written so far): the
   * positive signal a test waits for before asserting that a write did not happen.
   */
  delivered(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private idle(): boolean {
    for (const w of this.watchers) if (w.pending()) return false;
    return true;
  }

  private wakeIdle(): void {
    if (this.idleWaiters.length && this.idle()) for (const r of this.idleWaiters.splice(0)) r();
  }

  /** Puts objects straight into the store (test fixtures), without recording actions. */
  seed(type: ResourceType<ObjectBase>, ...objs: KubeObject[]): void {
    for (const o of objs) this.write(type, structuredClone(o), 'ADDED');
  }

  /** Current objects of a type (copies). */
  list(type: ResourceType<ObjectBase>, namespace?: string): KubeObject[] {
    const prefix = this.prefix(type, namespace);
    return [...this.objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, o]) => structuredClone(o));
  }

  prefix(type: ResourceType<ObjectBase>, namespace?: string): string {
    return `${type.group}/${type.resource}/${type.namespaced && namespace ? `${namespace}/` : ''}`;
  }

  key(type: ResourceType<ObjectBase>, namespace: string | undefined, name: string): string {
    return `${type.group}/${type.resource}/${type.namespaced ? `${namespace}/` : ''}${name}`;
  }

  get(type: ResourceType<ObjectBase>, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.objects.get(this.key(type, namespace, name));
    return o && structuredClone(o);
  }

  failIfAsked(verb: FakeAction['verb'], resource: string): void {
    const f = this.failures.find((x) => x.verb === verb && x.resource === resource && x.times > 0);
    if (f) { f.times--; throw f.error; }
  }

  record(a: FakeAction): void {
    this.actions.push(a);
  }

  get resourceVersion(): number {
    return this.rv;
  }

  write(type: ResourceType<ObjectBase>, obj: KubeObject, evType: 'ADDED' | 'MODIFIED' | 'DELETED'): KubeObject {
    const key = this.key(type, obj.metadata.namespace, obj.metadata.name as string);
    const rv = ++this.rv;
    obj.apiVersion = apiVersion(type);
    obj.kind = type.kind;
    obj.metadata.resourceVersion = String(rv);
    if (evType === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, obj);
    const ev: StoredEvent = { rv, type: evType, key, object: structuredClone(obj) };
    this.events.push(ev);
    if (this.events.length > 100_000) this.events.splice(0, 50_000);
    for (const w of this.watchers) if (key.startsWith(w.prefix)) w.push(ev);
    return structuredClone(obj);
  }

  now(): string {
    return rfc3339(new Date(this.clock.now()));
  }

  watch(type: ResourceType<ObjectBase>, namespace: string | undefined, opts: WatchOptions): WatchHandle {
    const prefix = this.prefix(type, namespace);
    const after = Number(opts.resourceVersion ?? 0);
    const label = parseSelector(opts.labelSelector ?? '');
    const field = parseFieldSelector(opts.fieldSelector ?? '');
    const queue: WatchEventRaw[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    // An event handed to the consumer counts as pending until it asks for the next one.
    let handedOut = false;
    const entry = {
      prefix,
      pending: () => !closed && (queue.length > 0 || handedOut),
      push: (e: StoredEvent) => {
        if (e.rv === -1) { closed = true; wake?.(); return; }
        if (e.rv <= after) return;
        if (!matches(label, e.object.metadata.labels) || !fieldsMatch(field, fieldSet(e.object))) return;
        queue.push({ type: e.type, object: structuredClone(e.object) });
        wake?.();
      },
    };
    for (const e of this.events) if (e.key.startsWith(prefix)) entry.push(e);
    this.watchers.add(entry);
    const watchers = this.watchers;
    const settled = () => this.wakeIdle();
    async function* events(): AsyncGenerator<WatchEventRaw> {
      try {
        while (!closed) {
          const ev = queue.shift();
          if (ev) {
            handedOut = true;
            yield ev;
            handedOut = false;
            continue;
          }
          settled();
          await new Promise<void>((r) => { wake = r; });
          wake = undefined;
        }
      } finally {
        handedOut = false;
        settled();
      }
    }
    const it = events();
    return { close: () => { closed = true; watchers.delete(entry); wake?.(); settled(); }, [Symbol.asyncIterator]: () => it };
  }
}

class FakeResource implements ResourceAPI {
  constructor(private fake: FakeClientset, readonly type: ResourceType) {}

  private notFound(name: string): APIError {
    return new APIError(404, 'NotFound', `${this.type.resource} "${name}" not found`);
  }

  async get(namespace: string | undefined, name: string): Promise<KubeObject> {
    const o = this.fake.get(this.type, namespace, name);
    if (!o) throw this.notFound(name);
    return o;
  }

  async list(namespace?: string, opts: ListOptions = {}): Promise<ObjectList> {
    const label = parseSelector(opts.labelSelector ?? '');
    const field = parseFieldSelector(opts.fieldSelector ?? '');
    const items = this.fake.list(this.type, namespace).filter((o) => matches(label, o.metadata.labels) && fieldsMatch(field, fieldSet(o)));
    return { apiVersion: apiVersion(this.type), kind: `${this.type.kind}List`, metadata: { resourceVersion: String(this.fake.resourceVersion) }, items };
  }

  listAll(namespace?: string, opts: ListOptions = {}): Promise<ObjectList> {
    return this.list(namespace, opts);
  }

  async create(namespace: string | undefined, input: KubeObject): Promise<KubeObject> {
    this.fake.failIfAsked('create', this.type.resource);
    const obj = structuredClone(input);
    const meta = obj.metadata;
    if (this.type.namespaced) meta.namespace = namespace ?? meta.namespace;
    // A generated name that is taken is generated again, as the API server does.
    if (!meta.name && meta.generateName) {
      do meta.name = `${meta.generateName}${randomUUID().slice(0, 5)}`;
      while (this.fake.get(this.type, meta.namespace, meta.name));
    }
    if (this.fake.get(this.type, meta.namespace, meta.name as string)) throw new APIError(409, 'AlreadyExists', `${this.type.resource} "${meta.name}" already exists`);
    meta.uid = randomUUID();
    meta.creationTimestamp = this.fake.now();
    if (obj.spec !== undefined) meta.generation = 1;
    this.fake.record({ verb: 'create', resource: this.type.resource, namespace: meta.namespace, name: meta.name as string, object: structuredClone(obj) });
    return this.fake.write(this.type, obj, 'ADDED');
  }

  async update(input: KubeObject, subresource?: string): Promise<KubeObject> {
    this.fake.failIfAsked('update', this.type.resource);
    const { namespace, name } = input.metadata;
    const cur = this.fake.get(this.type, namespace, name as string);
    if (!cur) throw this.notFound(name as string);
    if (input.metadata.resourceVersion && input.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw new APIError(409, 'Conflict', `Operation cannot be fulfilled on ${this.type.resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    let next: KubeObject;
    // A CSR's approval, like status, writes only status.
    if (subresource === 'status' || subresource === 'approval') next = { ...cur, status: structuredClone(input.status) };
    else {
      next = { ...structuredClone(input), status: cur.status };
      next.metadata = { ...next.metadata, uid: cur.metadata.uid, creationTimestamp: cur.metadata.creationTimestamp, deletionTimestamp: cur.metadata.deletionTimestamp };
      if (cur.metadata.generation !== undefined && JSON.stringify(next.spec) !== JSON.stringify(cur.spec)) next.metadata.generation = cur.metadata.generation + 1;
      else next.metadata.generation = cur.metadata.generation;
    }
    for (const k of Object.keys(next.metadata)) if (next.metadata[k] === undefined) delete next.metadata[k];
    this.fake.record({ verb: 'update', resource: this.type.resource, subresource, namespace, name: name as string, object: structuredClone(next) });
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length) return this.fake.write(this.type, next, 'DELETED');
    return this.fake.write(this.type, next, 'MODIFIED');
  }

  updateStatus(obj: KubeObject): Promise<KubeObject> {
    return this.update(obj, 'status');
  }

  async patch(namespace: string | undefined, name: string, type: PatchType, body: unknown, subresource?: string): Promise<KubeObject> {
    this.fake.failIfAsked('patch', this.type.resource);
    if (type === 'json') throw new Error('the fake clientset supports merge, strategic (as merge) and apply (as merge) patches');
    const cur = this.fake.get(this.type, namespace, name);
    if (!cur) {
      if (type !== 'apply') throw this.notFound(name);
      return this.create(namespace, body as KubeObject);
    }
    const patched = mergePatch(cur, body) as KubeObject;
    const b = body as KubeObject;
    if (!b?.metadata?.resourceVersion) patched.metadata.resourceVersion = cur.metadata.resourceVersion;
    this.fake.record({ verb: 'patch', resource: this.type.resource, subresource, namespace, name, object: structuredClone(body as KubeObject) });
    this.fake.actions.pop();
    const out = await this.update(patched, subresource);
    this.fake.actions[this.fake.actions.length - 1] = { verb: 'patch', resource: this.type.resource, subresource, namespace, name, object: structuredClone(body as KubeObject) };
    return out;
  }

  async delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    this.fake.failIfAsked('delete', this.type.resource);
    const cur = this.fake.get(this.type, namespace, name);
    if (!cur) throw this.notFound(name);
    if (opts.preconditions?.uid && opts.preconditions.uid !== cur.metadata.uid) throw new APIError(409, 'Conflict', 'Precondition failed: UID mismatch');
    this.fake.record({ verb: 'delete', resource: this.type.resource, namespace, name });
    const finalizers = new Set(cur.metadata.finalizers ?? []);
    if (opts.propagationPolicy === 'Foreground') finalizers.add('foregroundDeletion');
    if (opts.propagationPolicy === 'Orphan') finalizers.add('orphan');
    if (finalizers.size) {
      cur.metadata.finalizers = [...finalizers];
      cur.metadata.deletionTimestamp ??= this.fake.now();
      return this.fake.write(this.type, cur, 'MODIFIED');
    }
    return this.fake.write(this.type, cur, 'DELETED');
  }

  async getSubresource(namespace: string | undefined, name: string, subresource: string): Promise<unknown> {
    const o = await this.get(namespace, name);
    if (subresource !== 'scale') throw new APIError(404, 'NotFound', `the server could not find the requested resource`);
    return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name, namespace }, spec: { replicas: o.spec?.replicas ?? 0 }, status: { replicas: o.status?.replicas ?? 0 } };
  }

  async createSubresource(namespace: string | undefined, name: string, subresource: string, body: unknown): Promise<unknown> {
    this.fake.failIfAsked('create-subresource', this.type.resource);
    const cur = this.fake.get(this.type, namespace, name);
    if (!cur) throw this.notFound(name);
    this.fake.record({ verb: 'create-subresource', resource: this.type.resource, subresource, namespace, name, object: structuredClone(body as KubeObject) });
    if (subresource === 'binding') {
      if (cur.spec?.nodeName) throw new APIError(409, 'Conflict', `pod ${name} is already assigned to node "${cur.spec.nodeName}"`);
      const target = (body as { target: { name: string } }).target.name;
      cur.spec = { ...cur.spec, nodeName: target };
      cur.status = { ...cur.status, conditions: [...(cur.status?.conditions ?? []).filter((c: { type: string }) => c.type !== 'PodScheduled'), { type: 'PodScheduled', status: 'True' }] };
      this.fake.write(this.type, cur, 'MODIFIED');
    }
    return { kind: 'Status', status: 'Success' };
  }

  async watch(namespace: string | undefined, opts: WatchOptions = {}): Promise<WatchHandle> {
    return this.fake.watch(this.type, namespace, opts);
  }
}
