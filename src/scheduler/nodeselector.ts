// Node selector terms live in src/api (the DaemonSet controller evaluates them too).
export * from '../api/core/node-selector.js';
