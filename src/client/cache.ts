// An indexed, in-memory object cache, after client-go's ThreadSafeStore. Objects are frozen
// on the way in: whoever reads from a lister must copy before changing anything.
import type { KubeObject, ObjectBase } from '../api/object.js';

export type IndexFunc<T extends ObjectBase = KubeObject> = (obj: T) => string[];

export function objectKey(obj: ObjectBase): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : String(name);
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

export const namespaceIndex: IndexFunc<ObjectBase> = (o) => (o.metadata.namespace ? [o.metadata.namespace] : []);

export class Cache<T extends ObjectBase = KubeObject> {
  private items = new Map<string, T>();
  private indices = new Map<string, Map<string, Set<string>>>();

  constructor(private indexers: Record<string, IndexFunc<T>> = { namespace: namespaceIndex }) {
    for (const name of Object.keys(indexers)) this.indices.set(name, new Map());
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        set?.delete(key);
        if (set && !set.size) index.delete(v);
      }
    }
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        let set = index.get(v);
        if (!set) index.set(v, (set = new Set()));
        set.add(key);
      }
    }
  }

  /** Stores `obj`, returning the previous version. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    const frozen = deepFreeze(obj);
    this.items.set(key, frozen);
    this.index(key, frozen);
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`no index ${indexName}`);
    return [...(index.get(value) ?? [])].map((k) => this.items.get(k)!);
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.indices.has(name)) return;
    this.indexers[name] = fn;
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.items) {
      for (const v of fn(obj)) {
        let set = index.get(v);
        if (!set) index.set(v, (set = new Set()));
        set.add(key);
      }
    }
  }

  get size(): number {
    return this.items.size;
  }
}
