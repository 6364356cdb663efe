// The ControllerContext every controller test builds: given clients, informers and a clock,
// a silent logger (unless one is passed), events recorded through the same clients, and the
// default configuration with the test's overrides.
import type { ClientsetAPI, Clock, SharedInformerFactory } from '../../src/client/index.js';
import { EventRecorder, resources } from '../../src/client/index.js';
import { defaultControllerConfig, type ControllerConfig, type ControllerContext } from '../../src/controllers/framework.js';
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
