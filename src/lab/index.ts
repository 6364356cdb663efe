// The multi-node lab on one machine: see DESIGN.md.
export { labUp, usage, labExists } from './up.js';
export type { LabUpOptions } from './up.js';
export { labDown } from './down.js';
export { readState } from './state.js';
export type { LabState, LabProcess } from './state.js';
export { labTopology, labNamespaces } from './topology.js';
export type { LabTopology, LabNode } from './topology.js';
