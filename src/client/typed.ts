// A client per resource: the verbs a controller needs, on plain JSON objects.
import type { KubeObject, ObjectBase } from '../api/object.js';
import { RESTClient, type WatchHandle } from './rest.js';
import { apiVersion, resourcePath, type ResourceType } from './resources.js';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
}

export interface ObjectList<T extends ObjectBase = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** The verbs on one resource type; implemented over HTTPS (ResourceClient) and in memory (fake). */
export interface ResourceAPI<T extends ObjectBase = KubeObject> {
  readonly type: ResourceType<T>;
  get(namespace: string | undefined, name: string): Promise<T>;
  list(namespace?: string, opts?: ListOptions): Promise<ObjectList<T>>;
  listAll(namespace?: string, opts?: ListOptions): Promise<ObjectList<T>>;
  create(namespace: string | undefined, obj: T): Promise<T>;
  update(obj: T, subresource?: string): Promise<T>;
  updateStatus(obj: T): Promise<T>;
  patch(namespace: string | undefined, name: string, type: PatchType, body: unknown, subresource?: string, opts?: { force?: boolean }): Promise<T>;
  /** Returns the object as the server last had it (or a Status once it is gone). */
  delete(namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<T>;
  createSubresource(namespace: string | undefined, name: string, subresource: string, body: unknown): Promise<unknown>;
  /** GET of a subresource that is another kind (a workload's autoscaling/v1 Scale). */
  getSubresource(namespace: string | undefined, name: string, subresource: string): Promise<unknown>;
  watch(namespace: string | undefined, opts?: WatchOptions): Promise<WatchHandle>;
}

/** What controllers depend on: a ResourceAPI per type. */
export interface ClientsetAPI {
  resource<T extends ObjectBase>(type: ResourceType<T>): ResourceAPI<T>;
  close(): void;
}

export class ResourceClient<T extends ObjectBase = KubeObject> implements ResourceAPI<T> {
  constructor(private rest: RESTClient, readonly type: ResourceType<T>, private fieldManager: string) {}

  private path(namespace?: string, name?: string, sub?: string): string {
    return resourcePath(this.type, namespace, name, sub);
  }

  get(namespace: string | undefined, name: string): Promise<T> {
    return this.rest.request<T>('GET', this.path(namespace, name));
  }

  /** One page; see `listAll` for every page. */
  list(namespace?: string, opts: ListOptions = {}): Promise<ObjectList<T>> {
    return this.rest.request<ObjectList<T>>('GET', this.path(namespace), { query: { ...opts } });
  }

  /** Every item, following `continue` tokens, with the resourceVersion of the first page. */
  async listAll(namespace?: string, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const first = await this.list(namespace, { limit: 500, ...opts });
    const items = [...first.items];
    let cont = first.metadata.continue;
    while (cont) {
      const page = await this.list(namespace, { ...opts, limit: 500, continue: cont });
      items.push(...page.items);
      cont = page.metadata.continue;
    }
    return { ...first, items, metadata: { resourceVersion: first.metadata.resourceVersion } };
  }

  create(namespace: string | undefined, obj: T): Promise<T> {
    return this.rest.request<T>('POST', this.path(namespace), {
      body: { apiVersion: apiVersion(this.type), kind: this.type.kind, ...obj },
      query: { fieldManager: this.fieldManager },
    });
  }

  update(obj: T, subresource?: string): Promise<T> {
    return this.rest.request<T>('PUT', this.path(obj.metadata.namespace, obj.metadata.name, subresource), {
      body: { apiVersion: apiVersion(this.type), kind: this.type.kind, ...obj },
      query: { fieldManager: this.fieldManager },
    });
  }

  updateStatus(obj: T): Promise<T> {
    return this.update(obj, 'status');
  }

  patch(namespace: string | undefined, name: string, type: PatchType, body: unknown, subresource?: string, opts: { force?: boolean } = {}): Promise<T> {
    return this.rest.request<T>('PATCH', this.path(namespace, name, subresource), {
      body, contentType: patchContentTypes[type],
      query: { fieldManager: this.fieldManager, force: opts.force ? 'true' : undefined },
    });
  }

  delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<T> {
    return this.rest.request<T>('DELETE', this.path(namespace, name), { body: { kind: 'DeleteOptions', apiVersion: 'v1', ...opts } });
  }

  /** POST to a subresource (pods/binding). */
  createSubresource(namespace: string | undefined, name: string, subresource: string, body: unknown): Promise<unknown> {
    return this.rest.request<unknown>('POST', this.path(namespace, name, subresource), { body });
  }

  getSubresource(namespace: string | undefined, name: string, subresource: string): Promise<unknown> {
    return this.rest.request<unknown>('GET', this.path(namespace, name, subresource));
  }

  watch(namespace: string | undefined, opts: WatchOptions = {}): Promise<WatchHandle> {
    return this.rest.watch(this.path(namespace), { ...opts });
  }
}

/** One connection pool to the API server, a ResourceClient per resource type. */
export class Clientset implements ClientsetAPI {
  readonly rest: RESTClient;

  constructor(rest: RESTClient, private fieldManager = rest.userAgent) {
    this.rest = rest;
  }

  resource<T extends ObjectBase>(type: ResourceType<T>): ResourceClient<T> {
    return new ResourceClient(this.rest, type, this.fieldManager);
  }

  close(): void {
    this.rest.close();
  }
}
