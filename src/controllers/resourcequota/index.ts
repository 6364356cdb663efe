// The resource quota controller (status.used of every ResourceQuota).
import type { ControllerContext } from '../framework.js';
import { ResourceQuotaController } from './controller.js';

export { ResourceQuotaController, QUOTA_RESYNC_MS } from './controller.js';

export function create(ctx: ControllerContext): ResourceQuotaController {
  return new ResourceQuotaController(ctx);
}
