// core/v1 Node: spec (pod CIDRs, taints) and the status the node agent reports.
import { str, int32, int64, bool, obj, map, arr, keyedList, defineType } from '../../schema.js';
import { listMeta, objectMeta, quantityRef, timeRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Node', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: objectMeta(),
  spec: core('NodeSpec', 'How the node is configured.'),
  status: core('NodeStatus', 'Most recently observed state, reported by the node agent.'),
}, 'A machine that runs pods.', { gvk: [{ group: '', version: 'v1', kind: 'Node' }] }));

defineType('io.k8s.api.core.v1.NodeList', obj({
  apiVersion: str('The versioned schema of this object, e.g. apps/v1; the server converts to it.'),
  kind: str('The type of this object in CamelCase, e.g. Deployment.'),
  metadata: listMeta(),
  items: arr(core('Node'), 'The objects in the list.'),
}, 'A list of nodes.', { required: ['items'], gvk: [{ group: '', version: 'v1', kind: 'NodeList' }] }));

defineType('io.k8s.api.core.v1.NodeSpec', obj({
  podCIDR: str('The pod IP range assigned to the node.'),
  podCIDRs: arr(str(), 'The pod IP ranges assigned to the node, one per family, podCIDR first.', { patchStrategy: 'merge', listType: 'set' }),
  providerID: str('The node\'s ID at its cloud provider.'),
  unschedulable: bool('Keep new pods off the node (cordon).'),
  taints: arr(core('Taint'), 'Taints that repel pods not tolerating them.', { listType: 'atomic' }),
  configSource: core('NodeConfigSource'),
  externalID: str(),
}, 'Configuration of a node.'));

defineType('io.k8s.api.core.v1.NodeStatus', obj({
  capacity: map(quantityRef(), 'Total resources of the node.'),
  allocatable: map(quantityRef(), 'Resources available to pods.'),
  phase: str(undefined, { enum: ['Pending', 'Running', 'Terminated'] }),
  conditions: keyedList(core('NodeCondition'), 'type', 'Current conditions (Ready, MemoryPressure, DiskPressure, PIDPressure...).'),
  addresses: keyedList(core('NodeAddress'), 'type', 'Addresses the node is reachable at.'),
  daemonEndpoints: core('NodeDaemonEndpoints', 'Ports of the daemons running on the node.'),
  nodeInfo: core('NodeSystemInfo', 'Identifying information: versions, OS, architecture.'),
  images: arr(core('ContainerImage'), 'Images present on the node.', { listType: 'atomic' }),
  volumesInUse: arr(str(), undefined, { listType: 'atomic' }),
  volumesAttached: arr(core('AttachedVolume'), undefined, { listType: 'atomic' }),
  config: core('NodeConfigStatus'),
  runtimeHandlers: arr(core('NodeRuntimeHandler'), undefined, { listType: 'atomic' }),
  features: core('NodeFeatures'),
}, 'Observed state of a node.'));

defineType('io.k8s.api.core.v1.Taint', obj({
  key: str('Taint key.'),
  value: str('Taint value.'),
  effect: str('NoSchedule, PreferNoSchedule or NoExecute.', { enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] }),
  timeAdded: timeRef('When a NoExecute taint was added.'),
}, 'Marks a node so pods not tolerating it are kept away.', { required: ['key', 'effect'] }));

defineType('io.k8s.api.core.v1.NodeConfigSource', obj({
  configMap: core('ConfigMapNodeConfigSource'),
}));

defineType('io.k8s.api.core.v1.ConfigMapNodeConfigSource', obj({
  namespace: str(),
  name: str(),
  uid: str(),
  resourceVersion: str(),
  kubeletConfigKey: str(),
}, undefined, { required: ['namespace', 'name', 'kubeletConfigKey'] }));

defineType('io.k8s.api.core.v1.NodeCondition', obj({
  type: str('Type of the condition.'),
  status: str('True, False or Unknown.'),
  lastHeartbeatTime: timeRef(),
  lastTransitionTime: timeRef('When the status last changed.'),
  reason: str('CamelCase reason for the condition\'s last transition.'),
  message: str('Human-readable detail.'),
}, undefined, { required: ['type', 'status'] }));

defineType('io.k8s.api.core.v1.NodeAddress', obj({
  type: str('Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.'),
  address: str('The address.'),
}, undefined, { required: ['type', 'address'] }));

defineType('io.k8s.api.core.v1.NodeDaemonEndpoints', obj({
  kubeletEndpoint: core('DaemonEndpoint'),
}));

defineType('io.k8s.api.core.v1.DaemonEndpoint', obj({
  Port: int32(),
}, undefined, { required: ['Port'] }));

defineType('io.k8s.api.core.v1.NodeSystemInfo', obj({
  machineID: str(),
  systemUUID: str(),
  bootID: str(),
  kernelVersion: str(),
  osImage: str(),
  containerRuntimeVersion: str(),
  kubeletVersion: str(),
  kubeProxyVersion: str(),
  operatingSystem: str(),
  architecture: str(),
}, undefined, { required: ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'] }));

defineType('io.k8s.api.core.v1.ContainerImage', obj({
  names: arr(str(), undefined, { listType: 'atomic' }),
  sizeBytes: int64(),
}));

defineType('io.k8s.api.core.v1.AttachedVolume', obj({
  name: str(),
  devicePath: str(),
}, undefined, { required: ['name', 'devicePath'] }));

defineType('io.k8s.api.core.v1.NodeConfigStatus', obj({
  assigned: core('NodeConfigSource'),
  active: core('NodeConfigSource'),
  lastKnownGood: core('NodeConfigSource'),
  error: str(),
}));

defineType('io.k8s.api.core.v1.NodeRuntimeHandler', obj({
  name: str(),
  features: core('NodeRuntimeHandlerFeatures'),
}));

defineType('io.k8s.api.core.v1.NodeRuntimeHandlerFeatures', obj({
  recursiveReadOnlyMounts: bool(),
  userNamespaces: bool(),
}));

defineType('io.k8s.api.core.v1.NodeFeatures', obj({
  supplementalGroupsPolicy: bool(),
}));
