// Every built-in resource the API server serves, assembled with its allocators.
import type { Store } from '../../storage/store.js';
import type { ResourceDef } from './types.js';
import { namespaces } from './core/namespaces.js';
import { pods } from './core/pods.js';
import { configmaps, secrets, serviceaccounts, endpoints } from './core/simple.js';
import { services } from './core/services.js';
import { nodes } from './core/nodes.js';
import { events, eventsK8sIO } from './core/events.js';
import { deployments, replicasets } from './apps/workloads.js';
import { statefulsets } from './apps/statefulsets.js';
import { daemonsets } from './apps/daemonsets.js';
import { controllerrevisions } from './apps/controllerrevisions.js';
import { persistentvolumeclaims } from './core/persistentvolumeclaims.js';
import { persistentvolumes } from './core/persistentvolumes.js';
import { storageclasses } from './storage/storageclasses.js';
import { endpointslices } from './discovery/endpointslices.js';
import { leases } from './coordination/leases.js';
import { rbacResources } from './rbac/resources.js';
import type { EscalationGuard } from '../authz/rbac/escalation.js';
import { certificatesigningrequests } from './certificates/csr.js';
import { jobs } from './batch/jobs.js';
import { cronjobs } from './batch/cronjobs.js';
import { customresourcedefinitions } from './apiextensions/crds.js';
import { limitranges, resourcequotas } from './core/policy.js';
import { priorityclasses } from './scheduling/priorityclasses.js';
import { mutatingwebhookconfigurations, validatingwebhookconfigurations } from './admissionregistration/webhooks.js';
import { validatingadmissionpolicies, validatingadmissionpolicybindings } from './admissionregistration/policies.js';
import { networkpolicies } from './networking/networkpolicies.js';
import { adminnetworkpolicies, baselineadminnetworkpolicies } from './policynetworking/adminnetworkpolicies.js';
import { horizontalpodautoscalers } from './autoscaling/hpa.js';
import { poddisruptionbudgets } from './policy/poddisruptionbudgets.js';
import { Allocator, cidrRange, portRange } from './core/allocator.js';
import { GenericRegistry } from './generic.js';
import { limitObjectSize } from './size-limit.js';
import type { ResourceTransformers } from '../encryption/index.js';

export * from './types.js';
export { GenericRegistry } from './generic.js';
export type { ListOptions, ListResult, ListSource, DeleteOptions, DeleteResult } from './generic.js';

export interface RegistryConfig {
  serviceClusterIPRange: string;
  serviceNodePortRange: string;
  /** Encryption at rest (`--encryption-provider-config`); absent: everything stored plain. */
  transformers?: ResourceTransformers;
  /** Refuses RBAC writes that would grant more than the writer holds. */
  escalation: EscalationGuard;
}

export interface Registries {
  all: GenericRegistry[];
  /** Look up by group and resource name. */
  get(group: string, resource: string): GenericRegistry | undefined;
  /** Serves a resource added at run time (a custom resource); replaces one of the same group and name. */
  add(reg: GenericRegistry): void;
  /** Stops serving a resource added at run time. */
  remove(group: string, resource: string): void;
  serviceIPs: Allocator;
  nodePorts: Allocator;
}

export function buildRegistries(backend: Store, cfg: RegistryConfig): Registries {
  const store = limitObjectSize(backend);
  const serviceIPs = new Allocator(store, '/registry/ipallocations/', cidrRange(cfg.serviceClusterIPRange));
  const nodePorts = new Allocator(store, '/registry/portallocations/', portRange(cfg.serviceNodePortRange));
  const defs: ResourceDef[] = [
    namespaces, pods, services(serviceIPs, nodePorts), endpoints, nodes, configmaps, secrets, serviceaccounts, events,
    deployments, replicasets, statefulsets, daemonsets, controllerrevisions, persistentvolumeclaims,
    endpointslices, leases, eventsK8sIO, certificatesigningrequests, networkpolicies,
    adminnetworkpolicies, baselineadminnetworkpolicies,
    ...rbacResources(cfg.escalation),
    jobs, cronjobs, customresourcedefinitions,
    limitranges, resourcequotas, priorityclasses, mutatingwebhookconfigurations, validatingwebhookconfigurations,
    validatingadmissionpolicies, validatingadmissionpolicybindings,
    horizontalpodautoscalers,
    persistentvolumes, storageclasses,
    poddisruptionbudgets,
  ];
  const all = defs.map((d) => new GenericRegistry(d, store, cfg.transformers?.for(storedAs(d))));
  const byKey = new Map(all.map((r) => [`${r.def.group}/${r.def.resource}`, r]));
  const remove = (g: string, r: string): void => {
    const old = byKey.get(`${g}/${r}`);
    if (!old) return;
    byKey.delete(`${g}/${r}`);
    all.splice(all.indexOf(old), 1);
  };
  const add = (reg: GenericRegistry): void => {
    remove(reg.def.group, reg.def.resource);
    all.push(reg);
    byKey.set(`${reg.def.group}/${reg.def.resource}`, reg);
  };
  return { all, get: (g, r) => byKey.get(`${g}/${r}`), add, remove, serviceIPs, nodePorts };
}

// events.k8s.io Events are stored as core Events, and encrypted by the `events` rule.
function storedAs(def: ResourceDef): { group: string; resource: string } {
  const apiVersion = def.storageCodec?.apiVersion;
  const group = apiVersion === undefined ? def.group : apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return { group, resource: def.resource };
}
