// Keeps a PolicyIndex up to date from the watch cache: the current roles and bindings, then
// every change to them. When the cache loses history (its store watch was compacted) it drops
// its listeners; the feed then reloads the index from the cache's fresh state.
import type { WatchCache } from '../../../storage/watch-cache.js';
import type { WatchEvent } from '../../../storage/store.js';
import type { KubeObject } from '../../../api/object.js';
import { fallbacks } from '../../../log/fallback.js';
import type { BindingObject, PolicyIndex } from './policy-index.js';
import type { PolicyRule } from './rules.js';

const fallback = fallbacks('apiserver');

type Decode = (resource: string, ev: WatchEvent) => KubeObject;

const PREFIXES = ['/registry/roles/', '/registry/clusterroles/', '/registry/rolebindings/', '/registry/clusterrolebindings/'];

export class PolicyFeed {
  private stops: (() => void)[] = [];
  private stopped = false;

  constructor(private index: PolicyIndex, private cache: WatchCache, private decode: Decode) {}

  /** Loads the current state and follows changes; synchronous, so the index is complete on return. */
  start(): void {
    this.index.clear();
    const revision = this.cache.revision;
    for (const prefix of PREFIXES) {
      for (const ev of this.cache.snapshot(prefix).items) this.apply(ev);
    }
    for (const prefix of PREFIXES) {
      this.stops.push(this.cache.subscribe(prefix, revision, (ev) => {
        if (ev.revision === -1) this.restart();
        else this.apply(ev);
      }));
    }
  }

  private restart(): void {
    for (const s of this.stops.splice(0)) s();
    // The cache drops its listeners after this event; subscribe again once it has.
    queueMicrotask(() => { if (!this.stopped) this.start(); });
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.stops.splice(0)) s();
  }

  private apply(ev: WatchEvent): void {
    const parts = ev.key.split('/');
    // ['', 'registry', resource, ns?, name]
    const resource = parts[2];
    const namespaced = resource === 'roles' || resource === 'rolebindings';
    const namespace = namespaced ? parts[3] : '';
    const name = parts[namespaced ? 4 : 3];
    let obj: KubeObject | undefined;
    if (ev.type === 'PUT') {
      try {
        obj = this.decode(resource, ev);
      } catch (error) {
        // An undecodable object grants nothing; it is reported, never silently dropped.
        fallback('rbac-object-undecodable', { key: ev.key, error });
        obj = undefined;
      }
    }
    switch (resource) {
      case 'roles': return this.index.setRole(namespace, name, obj ? (obj.rules ?? []) as PolicyRule[] : undefined);
      case 'clusterroles': return this.index.setClusterRole(name, obj ? (obj.rules ?? []) as PolicyRule[] : undefined);
      case 'rolebindings':
      case 'clusterrolebindings': return this.index.setBinding(namespace, name, obj as BindingObject | undefined);
    }
  }
}
