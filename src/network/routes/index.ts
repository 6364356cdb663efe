// Routes between nodes: desired state (pure) → diff (pure) → manager (netlink + Node annotations).
export { RoutesManager, type RoutesManagerOptions, type SyncResult } from './manager.js';
export { desiredRoutes, nodeFacts, tunnelAddress, type NodeFacts } from './desired.js';
export { diffState, type KernelState } from './diff.js';
export * from './model.js';
