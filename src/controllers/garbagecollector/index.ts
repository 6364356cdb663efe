// The garbage collector.
import type { Controller, ControllerContext } from '../framework.js';
import { GarbageCollector } from './controller.js';

export { GarbageCollector, monitoredResources, orphanFinalizer, foregroundFinalizer } from './controller.js';
export { Graph, type GraphNode } from './graph.js';

export function create(ctx: ControllerContext): Controller {
  return new GarbageCollector(ctx);
}
