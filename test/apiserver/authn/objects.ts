// An in-memory ObjectGetter for the unit tests: the objects a token may name, added and
// removed by the test (the API server's own getter reads its watch cache).
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../src/api/object.js';
import type { ObjectGetter } from '../../../src/apiserver/authn/service-account.js';

type Resource = Parameters<ObjectGetter['get']>[0];

export class MemoryObjects implements ObjectGetter {
  private objects = new Map<string, KubeObject>();

  add(resource: Resource, namespace: string | undefined, name: string, extra: Partial<KubeObject> = {}): KubeObject {
    const obj: KubeObject = { ...extra, metadata: { name, ...(namespace ? { namespace } : {}), uid: randomUUID(), ...extra.metadata } };
    this.objects.set(`${resource}/${namespace ?? ''}/${name}`, obj);
    return obj;
  }

  remove(resource: Resource, namespace: string | undefined, name: string): void {
    this.objects.delete(`${resource}/${namespace ?? ''}/${name}`);
  }

  async get(resource: Resource, namespace: string | undefined, name: string): Promise<KubeObject | null> {
    return this.objects.get(`${resource}/${namespace ?? ''}/${name}`) ?? null;
  }
}
