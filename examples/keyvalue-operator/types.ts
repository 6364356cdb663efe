// The KeyValueStore custom resource (example.capstan.io/v1alpha1): a replicated, read-only
// key-value store over HTTP. Each key of spec.data is a file of a ConfigMap that every
// replica of a StatefulSet serves with busybox httpd: GET /<key> answers its value.
import { customResource, type Condition } from '../../src/operator/index.js';

export interface KeyValueStoreSpec {
  /** Replicas of the StatefulSet (default 1). */
  replicas?: number;
  /** The keys and values served. */
  data?: Record<string, string>;
  /** The serving image (default localhost/capstan/busybox:1). */
  image?: string;
}

export interface KeyValueStoreStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  conditions?: Condition[];
}

export interface KeyValueStore {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string; namespace?: string; uid?: string; resourceVersion?: string; generation?: number;
    labels?: Record<string, string>; deletionTimestamp?: string; finalizers?: string[];
  };
  spec: KeyValueStoreSpec;
  status?: KeyValueStoreStatus;
}

export const keyValueStores = customResource<KeyValueStore>({
  group: 'example.capstan.io', version: 'v1alpha1', plural: 'keyvaluestores', kind: 'KeyValueStore', namespaced: true,
});

export const FINALIZER = 'example.capstan.io/cleanup';
export const DEFAULT_IMAGE = 'localhost/capstan/busybox:1';
export const PORT = 8080;
