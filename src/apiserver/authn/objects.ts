// How authentication reads the objects a token names: from the watch cache, and from storage
// when the cache has not seen it yet (a token minted for an object created a moment ago), as
// upstream's getter falls back from informer to etcd. Never over HTTP.
import type { Store } from '../../storage/store.js';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../errors.js';
import type { Registries } from '../registry/index.js';
import type { ObjectGetter } from './service-account.js';

export function registryObjectGetter(registries: Registries, cache: Pick<Store, 'get'>): ObjectGetter {
  return {
    async get(resource, namespace, name) {
      const reg = registries.get('', resource);
      if (!reg) throw new Error(`no registry for ${resource}`);
      for (const source of [cache, reg.store]) {
        try {
          return await reg.get(namespace, name, source) as KubeObject;
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
        }
      }
      return null;
    },
  };
}
