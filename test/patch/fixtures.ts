// Small schemas shaped like the Kubernetes types the patch tests need.
import { any, arr, defineType, int32, keyedList, map, obj, str } from '../../src/api/schema.js';

const port = defineType('test.patch.ContainerPort', obj({ containerPort: int32(), protocol: str(), name: str() }));
const container = defineType('test.patch.Container', obj({
  name: str(),
  image: str(),
  imagePullPolicy: str(),
  args: arr(str()),
  ports: arr(port, undefined, { patchMergeKey: 'containerPort', patchStrategy: 'merge', listType: 'map', listMapKeys: ['containerPort', 'protocol'] }),
}));
const strategy = defineType('test.patch.Strategy', obj({
  type: str(),
  rollingUpdate: obj({ maxSurge: int32(), maxUnavailable: int32() }),
}));
const podSpec = defineType('test.patch.PodSpec', obj({
  containers: keyedList(container, 'name'),
  nodeSelector: map(str()),
}));

export const deploymentSchema = defineType('test.patch.Deployment', obj({
  apiVersion: str(),
  kind: str(),
  metadata: obj({
    name: str(),
    labels: map(str()),
    annotations: map(str()),
    finalizers: arr(str(), undefined, { patchStrategy: 'merge', listType: 'set' }),
  }),
  spec: obj({
    replicas: int32(),
    strategy,
    template: obj({ metadata: obj({ labels: map(str()) }), spec: podSpec }),
    intList: arr(int32(), undefined, { patchStrategy: 'merge' }),
    config: any(),
  }),
}));
