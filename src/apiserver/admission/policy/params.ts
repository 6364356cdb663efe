// A binding's parameters (paramKind + paramRef): the object named, or every object the
// selector picks, in paramRef's namespace or else the request's for a namespaced kind.
import type { Fields, KubeObject } from '../../../api/object.js';
import { fromLabelSelector, matches, type LabelSelector } from '../../../api/labels.js';
import { StatusError } from '../../errors.js';
import type { Registries, ListSource } from '../../registry/index.js';
import type { Store } from '../../../storage/store.js';

export class ParamError extends Error {}

/** The parameter objects, [] when none is found; throws ParamError when the binding cannot be resolved. */
export async function resolveParams(registries: Registries, source: ListSource & Pick<Store, 'get'>, paramKind: Fields, ref: Fields, requestNamespace: string): Promise<KubeObject[]> {
  const [group, version] = String(paramKind.apiVersion ?? '').includes('/') ? String(paramKind.apiVersion).split('/') : ['', String(paramKind.apiVersion ?? '')];
  const reg = registries.all.find((r) => r.def.group === group && r.def.kind === paramKind.kind && r.def.versions.some((v) => v.version === version));
  if (!reg) throw new ParamError(`failed to find resource referenced by paramKind: '${paramKind.apiVersion}, Kind=${paramKind.kind}'`);
  let namespace: string | undefined;
  if (reg.def.namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) throw new ParamError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  }
  // Params are seen as clients see them, with apiVersion and kind.
  const typed = (o: KubeObject): KubeObject => ({ apiVersion: paramKind.apiVersion, kind: paramKind.kind, ...o });
  if (ref.name) {
    try {
      return [typed(await reg.get(namespace, ref.name, source))];
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return [];
      throw e;
    }
  }
  const sel = fromLabelSelector(ref.selector as LabelSelector);
  const { items } = await reg.list({ source, namespace });
  return items.filter((o) => sel !== null && matches(sel, o.metadata.labels ?? {})).map(typed);
}
