// The controllers `capstan controller-manager` runs, by the names `--controllers` takes.
import type { Controller, ControllerContext } from './framework.js';

export type ControllerFactory = (ctx: ControllerContext) => Controller | Promise<Controller>;

// Each entry loads its controller lazily: `name: async () => (await import('./name/index.js')).create`.
export const controllers: Record<string, () => Promise<ControllerFactory>> = {
  nodeipam: async () => (await import('./nodeipam/index.js')).create,
  nodelifecycle: async () => (await import('./nodelifecycle/index.js')).create,
  replicaset: async () => (await import('./replicaset/index.js')).create,
  deployment: async () => (await import('./deployment/index.js')).create,
  job: async () => (await import('./job/index.js')).create,
  cronjob: async () => (await import('./cronjob/index.js')).create,
  ttlafterfinished: async () => (await import('./ttlafterfinished/index.js')).create,
  statefulset: async () => (await import('./statefulset/index.js')).create,
  daemonset: async () => (await import('./daemonset/index.js')).create,
  garbagecollector: async () => (await import('./garbagecollector/index.js')).create,
  endpointslice: async () => (await import('./endpointslice/index.js')).create,
  endpoints: async () => (await import('./endpoints/index.js')).create,
  namespace: async () => (await import('./namespace/index.js')).create,
  serviceaccount: async () => (await import('./serviceaccount/index.js')).create,
  'serviceaccount-token': async () => (await import('./serviceaccount/index.js')).createTokens,
  podgc: async () => (await import('./podgc/index.js')).create,
  'root-ca-cert-publisher': async () => (await import('./rootcacertpublisher/index.js')).create,
  clusterroleaggregation: async () => (await import('./clusterroleaggregation/index.js')).create,
  tokencleaner: async () => (await import('./bootstrap/index.js')).create,
  bootstrapsigner: async () => (await import('./bootstrap/index.js')).createSigner,
  csrapproving: async () => (await import('./certificates/index.js')).createApprover,
  csrsigning: async () => (await import('./certificates/index.js')).createSigner,
  resourcequota: async () => (await import('./resourcequota/index.js')).create,
  csrcleaner: async () => (await import('./certificates/index.js')).createCleaner,
  horizontalpodautoscaling: async () => (await import('./podautoscaler/index.js')).create,
  'persistentvolume-binder': async () => (await import('./volume/index.js')).create,
  'local-path-provisioner': async () => (await import('./volume/index.js')).createLocalPath,
  disruption: async () => (await import('./disruption/index.js')).create,
};

export * from './framework.js';
