// The client machinery every component outside the API server uses.
export { RESTClient, type WatchHandle, type WatchEventRaw } from './rest.js';
export { Clientset, ResourceClient, type ResourceAPI, type ClientsetAPI, type ObjectList, type ListOptions, type WatchOptions, type DeleteOptions, type PatchType } from './typed.js';
export { resources, resourcePath, apiVersion, type ResourceType } from './resources.js';
export { APIError, isNotFound, isConflict, isAlreadyExists, isGone } from './errors.js';
export { Cache, objectKey, splitKey, type IndexFunc } from './cache.js';
export { SharedInformer, Lister, type EventHandler } from './informer.js';
export { SharedInformerFactory } from './factory.js';
export { Reflector, stripManagedFields, type ReflectorSink } from './reflector.js';
export { WorkQueue, ExponentialRateLimiter, type RateLimiter } from './workqueue.js';
export { LeaderElector, type LeaderElectionConfig } from './leaderelection.js';
export { LeaderTerms, type Term } from './leader-terms.js';
export { EventRecorder, type EventSource } from './events.js';
export { realClock, FakeClock, type Clock } from './clock.js';
export { FakeClientset, type FakeAction } from './fake.js';
export { loadKubeconfig, writeKubeconfig, kubeconfigYAML, type ClientConfig } from './kubeconfig.js';
export { writeNodeKubeconfigs, nodeKubeconfigPath, nodeIdentities, NETWORK_AGENT_USER, DNS_SERVICE_ACCOUNT, type NodeKubeconfigs } from './node-identities.js';

import { loadKubeconfig, type ClientConfig } from './kubeconfig.js';
import { RESTClient } from './rest.js';
import { Clientset } from './typed.js';

/** A Clientset from a kubeconfig file; `userAgent` is also the default field manager. */
export function clientsetFromKubeconfig(path: string, userAgent: string, overrides: Pick<ClientConfig, 'maxSockets'> = {}): Clientset {
  return new Clientset(new RESTClient({ ...loadKubeconfig(path), ...overrides }, userAgent));
}
