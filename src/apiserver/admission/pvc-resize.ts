// The PersistentVolumeClaimResize admission plugin (upstream plugin/pkg/admission/storage/
// persistentvolume/resize): a Bound claim's storage request may grow only when its
// StorageClass sets allowVolumeExpansion. Nothing resizes the volume yet (no expansion
// controller): the claim's request grows, its status.capacity stays.
import { quantityValue } from '../../util/quantity.js';
import { StatusError } from '../errors.js';
import { admissionForbidden, type AdmissionPlugin } from '../admission.js';
import type { GenericRegistry } from '../registry/index.js';

export function pvcResize(classes: GenericRegistry): AdmissionPlugin {
  async function expandable(className: string | undefined): Promise<boolean> {
    if (!className) return false;
    try {
      return (await classes.get(undefined, className)).allowVolumeExpansion === true;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return false;
      throw e;
    }
  }

  return {
    name: 'PersistentVolumeClaimResize',
    async validate(a) {
      if (a.operation !== 'UPDATE' || a.info.group !== '' || a.info.resource !== 'persistentvolumeclaims' || a.info.subresource || !a.object || !a.oldObject) return;
      const size = quantityValue(a.object.spec?.resources?.requests?.storage);
      const was = quantityValue(a.oldObject.spec?.resources?.requests?.storage);
      if (size === null || was === null || size <= was) return;
      // An unbound claim's growth is the strategy's to refuse (422, spec is immutable), as
      // upstream, where strategy validation runs before validating admission.
      if (a.oldObject.status?.phase !== 'Bound') return;
      if (!(await expandable(a.oldObject.spec?.storageClassName))) {
        throw admissionForbidden(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
      }
    },
  };
}
