// A Deployment-shaped schema for the field manager tests, and the options they share.
import { arr, defineType, int32, keyedList, map, obj, str } from '../../src/api/schema.js';

const port = defineType('test.fieldmanager.ContainerPort', obj({ containerPort: int32(), protocol: { ...str(), default: 'TCP' }, name: str() }));
const container = defineType('test.fieldmanager.Container', obj({
  name: str(),
  image: str(),
  args: arr(str()),
  ports: arr(port, undefined, { patchMergeKey: 'containerPort', patchStrategy: 'merge', listType: 'map', listMapKeys: ['containerPort', 'protocol'] }),
}, undefined, { required: ['name'] }));

export const schema = defineType('test.fieldmanager.Deployment', obj({
  apiVersion: str(),
  kind: str(),
  metadata: obj({
    name: str(),
    namespace: str(),
    uid: str(),
    resourceVersion: str(),
    generation: int32(),
    labels: map(str()),
    annotations: map(str()),
    finalizers: arr(str(), undefined, { patchStrategy: 'merge', listType: 'set' }),
    managedFields: arr(obj({}), undefined, { listType: 'atomic' }),
  }),
  spec: obj({
    replicas: int32(),
    selector: obj({ matchLabels: map(str()) }, undefined, { mapType: 'atomic' }),
    template: obj({
      metadata: obj({ labels: map(str()) }),
      spec: obj({ containers: keyedList(container, 'name') }, undefined, { required: ['containers'] }),
    }),
  }, undefined, { required: ['template'] }),
  status: obj({ replicas: int32(), readyReplicas: int32() }),
}));

export const T0 = new Date('2024-05-01T10:00:00.250Z');
export const T1 = new Date('2024-05-01T10:05:00Z');
export const T2 = new Date('2024-05-01T10:10:00Z');

export const deployment = (image = 'nginx:1.25', replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image, ports: [{ containerPort: 80 }] }] },
    },
  },
});

/** The managedFields entry of one manager, or undefined. */
export function entryOf(o: any, manager: string, operation?: string): any {
  return (o.metadata.managedFields ?? []).find((e: any) => e.manager === manager && (!operation || e.operation === operation));
}
