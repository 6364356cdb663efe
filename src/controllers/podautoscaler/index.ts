// The horizontal pod autoscaler controller.
import type { Controller, ControllerContext } from '../framework.js';
import { HorizontalPodAutoscalerController } from './controller.js';

export { HorizontalPodAutoscalerController, SYNC_PERIOD_MS } from './controller.js';
export { ScalingHistory } from './behavior.js';
export { resourceReplicas, rawResourceReplicas, MetricsError } from './replica-calculator.js';

export function create(ctx: ControllerContext): Controller {
  return new HorizontalPodAutoscalerController(ctx, {
    syncPeriodMs: ctx.config.horizontalPodAutoscalerSyncPeriodMs, downscaleStabilizationMs: ctx.config.horizontalPodAutoscalerDownscaleStabilizationMs,
  });
}
