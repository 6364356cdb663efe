// Static types of the built-in kinds, from `kubernetes-types` (generated from Kubernetes'
// OpenAPI, so they model the JSON wire form: quantities and times are strings, IntOrString
// is `number | string`). Code outside the API server's generic machinery reads objects
// through these. Two adjustments for objects that came back from a server or a cache:
// `metadata` is always present, top-level fields (`status`) are writable so a copy can be
// edited before an update, and apiVersion/kind are plain strings (the client fills them in).
import type * as apps from 'kubernetes-types/apps/v1.js';
import type * as batch from 'kubernetes-types/batch/v1.js';
import type * as autoscaling from 'kubernetes-types/autoscaling/v2.js';
import type * as certificates from 'kubernetes-types/certificates/v1.js';
import type * as coordination from 'kubernetes-types/coordination/v1.js';
import type * as core from 'kubernetes-types/core/v1.js';
import type * as discovery from 'kubernetes-types/discovery/v1.js';
import type * as meta from 'kubernetes-types/meta/v1.js';
import type * as networking from 'kubernetes-types/networking/v1.js';
import type * as rbac from 'kubernetes-types/rbac/v1.js';
import type * as storage from 'kubernetes-types/storage/v1.js';
import type * as policy from 'kubernetes-types/policy/v1.js';
import type * as anp from './policynetworking/v1alpha1/types.js';

type Writable<T> = { -readonly [K in keyof T]: T[K] };

export type ObjectMeta = Writable<meta.ObjectMeta>;

/** A kind as stored: writable top-level fields, metadata always present. */
export type Stored<T> = Writable<Omit<T, 'metadata' | 'apiVersion' | 'kind'>> & { apiVersion?: string; kind?: string; metadata: ObjectMeta };

export type Namespace = Stored<core.Namespace>;
export type Node = Stored<core.Node>;
export type Pod = Stored<core.Pod>;
export type Service = Stored<core.Service>;
export type Endpoints = Stored<core.Endpoints>;
export type ConfigMap = Stored<core.ConfigMap>;
export type Secret = Stored<core.Secret>;
export type ServiceAccount = Stored<core.ServiceAccount>;
export type Event = Stored<core.Event>;
export type Deployment = Stored<apps.Deployment>;
export type ReplicaSet = Stored<apps.ReplicaSet>;
export type StatefulSet = Stored<apps.StatefulSet>;
export type DaemonSet = Stored<apps.DaemonSet>;
export type ControllerRevision = Stored<apps.ControllerRevision>;
export type PersistentVolumeClaim = Stored<core.PersistentVolumeClaim>;
export type PersistentVolume = Stored<core.PersistentVolume>;
export type StorageClass = Stored<storage.StorageClass>;
export type EndpointSlice = Stored<discovery.EndpointSlice>;
export type Lease = Stored<coordination.Lease>;
export type Role = Stored<rbac.Role>;
export type ClusterRole = Stored<rbac.ClusterRole>;
export type RoleBinding = Stored<rbac.RoleBinding>;
export type ClusterRoleBinding = Stored<rbac.ClusterRoleBinding>;
export type CertificateSigningRequest = Stored<certificates.CertificateSigningRequest>;
export type Job = Stored<batch.Job>;
export type CronJob = Stored<batch.CronJob>;
export type HorizontalPodAutoscaler = Stored<autoscaling.HorizontalPodAutoscaler>;
export type ResourceQuota = Stored<core.ResourceQuota>;
export type NetworkPolicy = Stored<networking.NetworkPolicy>;
export interface AdminNetworkPolicy { apiVersion?: string; kind?: string; metadata: ObjectMeta; spec: anp.AdminNetworkPolicySpec; status?: anp.AdminNetworkPolicyStatus }
export interface BaselineAdminNetworkPolicy { apiVersion?: string; kind?: string; metadata: ObjectMeta; spec: anp.BaselineAdminNetworkPolicySpec; status?: anp.AdminNetworkPolicyStatus }
export type PodDisruptionBudget = Stored<policy.PodDisruptionBudget>;

/** An object of any kind whose metadata is typed: what owner-reference and key helpers take. */
export interface KindObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** An unset metav1.Time as Kubernetes writes it (`null`); kubernetes-types has no null. */
export const nullTime = null as unknown as string;
