// The minimal-churn plan for one Service and address family, after Kubernetes'
// reconcileByAddressType: keep slices whose content is unchanged, update slices in place
// when endpoints change, fill slices that are written anyway before touching others, reuse
// slices marked for deletion instead of creating new ones, and keep one empty placeholder
// slice when the Service has no endpoints.
import type { OwnerReference } from '../../api/object.js';
import { endpointKey, portKey, type Endpoint, type EndpointGroup, type EndpointPort } from './desired.js';
import { canonical, type AddressType } from './pods.js';
import type { EndpointSlice, Service } from '../../api/kinds.js';
import type * as discovery from 'kubernetes-types/discovery/v1.js';

export const serviceNameLabel = 'kubernetes.io/service-name';
export const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
export const controllerName = 'endpointslice-controller.k8s.io';
export const headlessLabel = 'service.kubernetes.io/headless';

export interface SlicePlan {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
}

/** The Service's labels plus the ones that tie a slice to it. */
export function sliceLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {})) if (k !== serviceNameLabel && k !== managedByLabel && k !== headlessLabel) labels[k] = v;
  labels[serviceNameLabel] = svc.metadata.name as string;
  labels[managedByLabel] = controllerName;
  if (svc.spec?.clusterIP === 'None') labels[headlessLabel] = '';
  return labels;
}

export function serviceOwnerRef(svc: Service): OwnerReference {
  return { apiVersion: 'v1', kind: 'Service', name: svc.metadata.name as string, uid: svc.metadata.uid as string, controller: true, blockOwnerDeletion: true };
}

export function ownedBy(slice: EndpointSlice, svc: Service): boolean {
  return (slice.metadata.ownerReferences ?? []).some((r) => r.controller && r.kind === 'Service' && r.uid === svc.metadata.uid);
}

const byKey = (a: discovery.Endpoint, b: discovery.Endpoint): number => {
  const ka = `${a.targetRef?.namespace ?? ''}/${a.targetRef?.name ?? ''}/${a.addresses.join(',')}`;
  const kb = `${b.targetRef?.namespace ?? ''}/${b.targetRef?.name ?? ''}/${b.addresses.join(',')}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

function newSlice(svc: Service, type: AddressType, ports: EndpointPort[]): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { generateName: `${svc.metadata.name}-`, namespace: svc.metadata.namespace, labels: sliceLabels(svc), ownerReferences: [serviceOwnerRef(svc)] },
    addressType: type, ports: structuredClone(ports), endpoints: [],
  };
}

/** An existing slice, copied, with the metadata and ports a Service wants it to have. */
function rewritten(slice: EndpointSlice, svc: Service, ports: discovery.EndpointPort[], endpoints: discovery.Endpoint[]): EndpointSlice {
  const copy = structuredClone(slice);
  copy.metadata.labels = sliceLabels(svc);
  copy.metadata.ownerReferences = [serviceOwnerRef(svc)];
  copy.ports = structuredClone(ports);
  copy.endpoints = endpoints;
  return copy;
}

const metaMatches = (slice: EndpointSlice, svc: Service, ports: discovery.EndpointPort[]): boolean =>
  canonical(slice.metadata.labels ?? {}) === canonical(sliceLabels(svc)) && canonical(slice.ports ?? []) === canonical(ports);

/**
 * Plans the writes for `existing` — slices of this family already owned by `svc` — to hold
 * `desired` with at most `max` endpoints a slice.
 */
export function planSlices(svc: Service, type: AddressType, existing: readonly EndpointSlice[], desired: Map<string, EndpointGroup>, max: number): SlicePlan {
  const remaining = new Map([...desired].map(([k, g]) => [k, new Map(g.endpoints)]));
  const toUpdate: EndpointSlice[] = [];
  const toDelete: EndpointSlice[] = [];
  const unchanged: EndpointSlice[] = [];
  const sorted = [...existing].sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));

  // 1. Each existing slice keeps the endpoints still wanted under its port set.
  for (const slice of sorted) {
    const key = portKey(slice.ports);
    const want = remaining.get(key);
    if (!want) { toDelete.push(slice); continue; }
    const ports = desired.get(key)!.ports;
    const kept: Endpoint[] = [];
    let changed = !metaMatches(slice, svc, ports);
    for (const ep of (slice.endpoints ?? []) as Endpoint[]) {
      const k = endpointKey(ep);
      const next = want.get(k);
      if (!next) { changed = true; continue; }
      want.delete(k);
      kept.push(next);
      if (canonical(ep) !== canonical(next)) changed = true;
    }
    if (!changed) unchanged.push(slice);
    else if (!kept.length) toDelete.push(slice);
    else toUpdate.push(rewritten(slice, svc, ports, kept));
  }

  const create: EndpointSlice[] = [];
  for (const [key, want] of [...remaining].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const ports = desired.get(key)!.ports;
    const left = [...want.values()].sort(byKey);
    if (!left.length) continue;
    // 2. Slices written anyway take new endpoints first, fullest first.
    const updating = toUpdate.filter((s) => portKey(s.ports) === key).sort((a, b) => b.endpoints.length - a.endpoints.length);
    for (const s of updating) while (left.length && s.endpoints.length < max) s.endpoints.push(left.shift()!);
    // 3. The rest goes into the fullest unchanged slice that can take it all, else new slices.
    while (left.length) {
      let target: EndpointSlice | undefined;
      if (left.length < max) {
        const fits = unchanged.filter((s) => portKey(s.ports) === key && max - (s.endpoints ?? []).length >= left.length)
          .sort((a, b) => (b.endpoints ?? []).length - (a.endpoints ?? []).length)[0];
        if (fits) {
          unchanged.splice(unchanged.indexOf(fits), 1);
          target = rewritten(fits, svc, ports, [...((fits.endpoints ?? []) as Endpoint[])]);
          toUpdate.push(target);
        }
      }
      if (!target) create.push((target = newSlice(svc, type, ports)));
      while (left.length && target.endpoints.length < max) target.endpoints.push(left.shift()!);
    }
  }

  // 4. No endpoints at all: one empty placeholder slice says the Service has been seen.
  if (!unchanged.length && !toUpdate.length && !create.length) {
    const reuse = toDelete.shift();
    if (!reuse) create.push(newSlice(svc, type, []));
    else if ((reuse.endpoints ?? []).length || !metaMatches(reuse, svc, [])) toUpdate.push(rewritten(reuse, svc, [], []));
  }

  // 5. A slice about to be deleted is cheaper to rewrite than a new one is to create.
  while (create.length && toDelete.length) {
    const fresh = create.pop()!;
    const old = toDelete.shift()!;
    toUpdate.push(rewritten(old, svc, fresh.ports!, fresh.endpoints));
  }

  for (const s of [...toUpdate, ...create]) s.endpoints.sort(byKey);
  return { create, update: toUpdate, delete: toDelete };
}
