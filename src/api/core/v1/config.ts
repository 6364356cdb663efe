// core/v1 ConfigMap, Secret and ServiceAccount.
import { str, bool, bytes, obj, map, arr, keyedList, defineType, pb } from '../../schema.js';
import { listMeta, objectMeta } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.ConfigMap', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  immutable: pb(4, bool('When true, data cannot be changed any more.'), 'keepZero'),
  data: pb(2, map(str(), 'UTF-8 values by key.')),
  binaryData: pb(3, map(bytes(), 'Binary values by key, base64 in JSON.')),
}, 'Non-confidential key/value configuration for pods.', { gvk: [{ group: '', version: 'v1', kind: 'ConfigMap' }] }));

defineType('io.k8s.api.core.v1.ConfigMapList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('ConfigMap'), 'The objects in the list.'),
}, 'A list of ConfigMaps.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'ConfigMapList' }] }));

defineType('io.k8s.api.core.v1.Secret', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  immutable: pb(5, bool('When true, data cannot be changed any more.'), 'keepZero'),
  data: pb(2, map(bytes(), 'Values by key, base64 encoded.')),
  stringData: pb(4, map(str(), 'Write-only plain-text values merged into data on write.')),
  type: pb(3, str('Type used to check the data, e.g. Opaque or kubernetes.io/tls.')),
}, 'Confidential key/value data such as passwords, tokens and keys.', { gvk: [{ group: '', version: 'v1', kind: 'Secret' }] }));

defineType('io.k8s.api.core.v1.SecretList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Secret'), 'The objects in the list.'),
}, 'A list of Secrets.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'SecretList' }] }));

defineType('io.k8s.api.core.v1.ServiceAccount', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: pb(1, objectMeta()),
  secrets: pb(2, keyedList(core('ObjectReference'), 'name', 'Secrets pods using this account may use (legacy).')),
  imagePullSecrets: pb(3, arr(core('LocalObjectReference'), 'Registry credentials added to pods using this account.', { listType: 'atomic' })),
  automountServiceAccountToken: pb(4, bool('Whether pods get a token mounted by default.'), 'keepZero'),
}, 'An identity for processes running in pods.', { gvk: [{ group: '', version: 'v1', kind: 'ServiceAccount' }] }));

defineType('io.k8s.api.core.v1.ServiceAccountList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('ServiceAccount'), 'The objects in the list.'),
}, 'A list of service accounts.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'ServiceAccountList' }] }));
