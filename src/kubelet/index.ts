// The kubelet: node registration and heartbeats, pod workers over CRI, probes, status.
// The kubelet server (logs/exec, src/kubelet/server) uses findContainer/findContainerID,
// the log layout (podLogDirectory, containerLogPath) and a CRIClient of its own.
export { Kubelet } from './kubelet.js';
export type { KubeletOptions } from './kubelet.js';
export { findContainer, findContainerID } from './lookup.js';
export type { FoundContainer, FindOptions } from './lookup.js';
export {
  podLogDirectory, containerLogPath, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL, CONTAINER_NAME_LABEL,
  CONTAINER_HASH_ANNOTATION, RESTART_COUNT_ANNOTATION,
} from './labels.js';
export { computePodStatus, podPhase } from './status.js';
export { NodeAgent, KUBELET_VERSION, runtimeHealth } from './node-agent.js';
export { machineInfo, defaultNodeIP } from './machine.js';
export type { MachineInfo, PressureSample } from './machine.js';
export { writePtpConfig, hasCNIConfig } from './cni-config.js';
