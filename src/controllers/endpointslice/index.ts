// The EndpointSlice controller (discovery.k8s.io/v1 slices for Services with selectors), and
// the Pod-to-endpoint rules the Endpoints controller shares with it.
import type { ControllerContext } from '../framework.js';
import { EndpointSliceController, type EndpointSliceOptions } from './controller.js';

export { EndpointSliceController, namespaceTerminating, type EndpointSliceOptions } from './controller.js';
export { controllerName, managedByLabel, serviceNameLabel, headlessLabel } from './plan.js';
export * from './pods.js';
export { endpointPorts, type EndpointPort } from './desired.js';

export function create(ctx: ControllerContext, opts: EndpointSliceOptions = {}): EndpointSliceController {
  return new EndpointSliceController(ctx, opts);
}
