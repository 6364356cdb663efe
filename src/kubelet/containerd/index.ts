// A capstan-managed containerd: config, process lifecycle, and the clean-up helpers the
// kubelet needs around it.
export { startContainerd } from './process.js';
export type { StartContainerdOptions, ContainerdHandle, DestroyOptions } from './process.js';
export { containerdConfig, DEFAULT_SANDBOX_IMAGE } from './config.js';
export type { ContainerdConfigOptions } from './config.js';
export { containerdPaths } from './paths.js';
export type { ContainerdPaths } from './paths.js';
export { removeCgroup, cgroupHierarchies, cgroupPids } from './cgroups.js';
export { mountsUnder, unmountUnder } from './mounts.js';
export { listTasks, killTasks } from './shims.js';
export type { TaskProcess } from './shims.js';
export { subscribeEvents, decodeEnvelope } from './events.js';
export type { TaskEvent, EventStream } from './events.js';
