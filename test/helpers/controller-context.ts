// The ControllerContext every controller test builds: given clients, informers and a clock,
// a silent logger (unless one is passed), events recorded through the same clients, and the
// default configuration with the test's overrides.
import type { ClientsetAPI, Clock, FakeClientset, FakeClock, SharedInformerFactory } from '../../src/client/index.js';
import { EventRecorder, resources } from '../../src/client/index.js';
import { defaultControllerConfig, type ControllerConfig, type ControllerContext, type QueueController } from '../../src/controllers/framework.js';
import { logger, type Logger } from '../../src/log/index.js';

export function controllerContext(o: {
  clients: ClientsetAPI;
  informers: SharedInformerFactory;
  clock: Clock;
  log?: Logger;
  config?: Partial<ControllerConfig>;
}): ControllerContext {
  const log = o.log ?? logger('test', {}, () => undefined);
  return {
    clients: o.clients, informers: o.informers, clock: o.clock, log,
    recorder: (component) => new EventRecorder(o.clients.resource(resources.events), { component }, o.clock, log),
    config: { ...defaultControllerConfig, ...o.config },
  };
}

/**
 * Runs a controller's queue by hand: `drain` lets the fake clientset deliver every watch event
 * to the informers, reconciles what that queued, and repeats until a delivery queues nothing;
 * `advance` moves the fake clock `stepMs` at a time, draining whatever falls due. `tickMs`
 * steps the clock before each round (for controllers that requeue after a short delay).
 */
export function queueDriver(c: QueueController, fake: FakeClientset, clock: FakeClock, o: { stepMs?: number; tickMs?: number } = {}) {
  const { stepMs = 1000, tickMs = 0 } = o;
  const drain = async () => {
    for (let i = 0; i < 1000; i++) {
      await fake.delivered();
      if (tickMs) clock.step(tickMs);
      if (!c.queue.length) return;
      while (c.queue.length) await c.processNext();
    }
    throw new Error('queue never drained');
  };
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= stepMs) { clock.step(Math.min(stepMs, left)); await drain(); }
  };
  return { drain, advance };
}
