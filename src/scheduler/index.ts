// The scheduler's public face.
export { Scheduler, defaultSchedulerName, type SchedulerOptions, type SchedulerStats } from './scheduler.js';
export { SchedulingQueue, type QueuedPod, type QueueOptions } from './queue.js';
export { SchedulerCache } from './cache.js';
export { NodeInfo } from './nodeinfo.js';
export { newPodInfo, type PodInfo } from './podinfo.js';
export { Algorithm, FitError, fitMessage, numFeasibleNodesToFind } from './algorithm.js';
export { parseQuantity, milliValue, value } from '../util/index.js';
export { podRequests } from './resources.js';
export * as plugins from './plugins/index.js';
