// The lab view's objects from the API server's own watch cache (the page it serves at
// /capstan/lab-view): no watch connections, nothing stored twice.
import type { KubeObject } from '../api/object.js';
import type { EndpointSlice, NetworkPolicy, Node, Pod, Service } from '../api/kinds.js';
import type { ViewInput } from './model.js';
import type { ViewSource } from './server.js';

/** What the API server offers in-process readers (APIServer.cachedObjects). */
export interface CachedObjects {
  cachedObjects(group: string, resource: string): { list(): Promise<KubeObject[]>; subscribe(fn: () => void): () => void };
}

const watched = {
  nodes: ['', 'nodes'], pods: ['', 'pods'], services: ['', 'services'],
  slices: ['discovery.k8s.io', 'endpointslices'], policies: ['networking.k8s.io', 'networkpolicies'],
} as const;

export class CachedViewSource implements ViewSource {
  private listeners: (() => void)[] = [];
  private unsubscribe: (() => void)[] = [];

  constructor(private server: CachedObjects) {}

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  async start(): Promise<void> {
    const notify = () => { for (const fn of this.listeners) fn(); };
    for (const [group, resource] of Object.values(watched)) this.unsubscribe.push(this.server.cachedObjects(group, resource).subscribe(notify));
  }

  async snapshot(): Promise<ViewInput> {
    const list = ([group, resource]: readonly [string, string]) => this.server.cachedObjects(group, resource).list();
    const [nodes, pods, services, slices, policies] = await Promise.all(Object.values(watched).map(list));
    return {
      nodes: nodes as Node[], pods: pods as Pod[], services: services as Service[],
      slices: slices as EndpointSlice[], policies: policies as NetworkPolicy[],
    };
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
  }
}
