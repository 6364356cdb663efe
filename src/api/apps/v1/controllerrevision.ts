// apps/v1 ControllerRevision: an immutable snapshot of a StatefulSet's or DaemonSet's
// template, what `kubectl rollout history/undo` reads.
import { str, int64, obj, arr, any, defineType } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';
import { apps } from './names.js';

defineType('io.k8s.api.apps.v1.ControllerRevision', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. ControllerRevision.'),
  metadata: objectMeta(),
  data: any('The serialized state (a patch of the owner\'s template).'),
  revision: int64('The revision number of the state in data.'),
}, 'An immutable snapshot of state data.', { required: ['revision'], gvk: [{ group: 'apps', version: 'v1', kind: 'ControllerRevision' }] }));

defineType('io.k8s.api.apps.v1.ControllerRevisionList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. ControllerRevisionList.'),
  metadata: listMeta(),
  items: arr(apps('ControllerRevision'), 'The objects in the list.'),
}, 'A list of ControllerRevisions.', { required: ['items'], gvk: [{ group: 'apps', version: 'v1', kind: 'ControllerRevisionList' }] }));
