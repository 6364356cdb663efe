// The DefaultStorageClass admission plugin (upstream plugin/pkg/admission/storage/
// storageclass/setdefault): a new claim that names no class (neither spec.storageClassName
// nor the beta annotation) gets the default one — the class annotated
// storageclass.kubernetes.io/is-default-class=true, the newest when several are. With no
// default class the claim stays without one (and binds only to volumes without a class).
import type { KubeObject } from '../../api/object.js';
import type { AdmissionPlugin } from '../admission.js';
import type { GenericRegistry, ListSource } from '../registry/index.js';
import { isDefaultClass } from '../registry/storage/storageclasses.js';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** Upstream's GetDefaultClass: of the default classes, the newest; equal ages by name. */
export function newestDefault(classes: KubeObject[]): KubeObject | undefined {
  return classes.filter(isDefaultClass).sort((x, y) =>
    (Date.parse(y.metadata.creationTimestamp ?? '') - Date.parse(x.metadata.creationTimestamp ?? '')) || (x.metadata.name ?? '').localeCompare(y.metadata.name ?? ''))[0];
}

/** `source`: where the classes are listed from (the watch cache once it has caught up with storage). */
export function defaultStorageClass(classes: GenericRegistry, source?: ListSource): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    async mutate(a) {
      if (a.operation !== 'CREATE' || a.info.group !== '' || a.info.resource !== 'persistentvolumeclaims' || a.info.subresource || !a.object) return;
      const claim = a.object;
      if (claim.spec?.storageClassName != null || claim.metadata.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return;
      const def = newestDefault((await classes.list({ source })).items);
      if (!def) return;
      (claim.spec ??= {}).storageClassName = def.metadata.name;
    },
  };
}
