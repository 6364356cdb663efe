// The ClusterRole aggregation controller (admin, edit, view and any role with an aggregationRule).
import type { ControllerContext } from '../framework.js';
import { ClusterRoleAggregationController } from './controller.js';

export { ClusterRoleAggregationController } from './controller.js';

export function create(ctx: ControllerContext): ClusterRoleAggregationController {
  return new ClusterRoleAggregationController(ctx);
}
