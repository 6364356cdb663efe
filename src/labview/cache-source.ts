// The lab view's objects from the API server's own watch cache (the page it serves at
// /capstan/lab-view): no watch connections, nothing stored twice.
import type { KubeObject } from '../api/object.js';
import type { ViewInput } from './model.js';
import type { ViewSource } from './server.js';

/** What the API server offers in-process readers (APIServer.cachedObjects). */
export interface CachedObjects {
  cachedObjects(group: string, resource: string): { list(): Promise<KubeObject[]>; subscribe(fn: () => void): () => void };
}

const watched: Record<keyof ViewInput, readonly [string, string]> = {
  nodes: ['', 'nodes'], pods: ['', 'pods'], services: ['', 'services'],
  slices: ['discovery.k8s.io', 'endpointslices'], policies: ['networking.k8s.io', 'networkpolicies'],
  namespaces: ['', 'namespaces'],
  adminPolicies: ['policy.networking.k8s.io', 'adminnetworkpolicies'],
  baselinePolicies: ['policy.networking.k8s.io', 'baselineadminnetworkpolicies'],
};

/** The resource's cache, or none when this server does not serve it (then the view has none of it). */
function cacheOf(server: CachedObjects, [group, resource]: readonly [string, string]) {
  try { return server.cachedObjects(group, resource); } catch { return undefined; }
}

export class CachedViewSource implements ViewSource {
  private listeners: (() => void)[] = [];
  private unsubscribe: (() => void)[] = [];

  constructor(private server: CachedObjects) {}

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    const notify = () => { for (const fn of this.listeners) fn(); };
    for (const w of Object.values(watched)) {
      const cache = cacheOf(this.server, w);
      if (cache) this.unsubscribe.push(cache.subscribe(notify));
    }
  }

  async snapshot(): Promise<ViewInput> {
    const entries = await Promise.all(Object.entries(watched).map(async ([k, w]) => [k, await cacheOf(this.server, w)?.list() ?? []] as const));
    return Object.fromEntries(entries) as unknown as ViewInput;
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
  }
}
