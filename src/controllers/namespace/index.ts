// The Namespace controller (empties terminating namespaces, then finalizes them).
import { Clientset } from '../../client/index.js';
import type { ControllerContext } from '../framework.js';
import { NamespaceController } from './controller.js';
import { ServerDiscovery, StaticDiscovery, type ResourceDiscovery } from './discovery.js';

export { NamespaceController, kubernetesFinalizer } from './controller.js';
export { ServerDiscovery, StaticDiscovery, type ResourceDiscovery, type DiscoveryResult } from './discovery.js';
export { deletionConditions, type NamespaceCondition } from './conditions.js';

/** Discovery asks the server when there is one behind the clients, else uses the static table. */
export function create(ctx: ControllerContext, discovery?: ResourceDiscovery): NamespaceController {
  const d = discovery ?? (ctx.clients instanceof Clientset ? new ServerDiscovery(ctx.clients.rest) : new StaticDiscovery());
  return new NamespaceController(ctx, d);
}
