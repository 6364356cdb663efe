// The shape every API object shares. Server logic handles objects as plain JSON; the few
// places that need more (conversion, strategies) read their fields through these types.
// Code outside the API server reads built-in kinds through the static types in kinds.ts.
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [extra: string]: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Fields = Record<string, any>;

export interface KubeObject extends Fields {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/**
 * What the client layer needs of any object, typed kind or generic: the metadata caches key,
 * index and select on. Both KubeObject and the kinds in kinds.ts satisfy it.
 */
export interface ObjectBase {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    generateName?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
}

export { deepCopy } from '../util/index.js';

export function isPlainObject(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** apiVersion as clients write it: `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function parseAPIVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}
