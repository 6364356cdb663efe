// What every cluster has from the start, as Kubernetes' bootstrap controllers make it: the
// system namespaces and the `kubernetes` Service (first IP of the service range) with
// Endpoints and an EndpointSlice pointing at the API server. Idempotent, so several API
// servers on one etcd may all run it; a server that restarts on another address or port
// brings the existing Service, Endpoints and EndpointSlice up to date (an address is added
// next to the others while the port stays; a new port replaces them all).
import type { Fields, KubeObject } from '../api/object.js';
import { StatusError } from './errors.js';
import type { Registries, RequestContext } from './registry/index.js';
import { formatIPv4 } from '../util/index.js';
import { SYSTEM_PRIORITY_CLASSES } from './registry/scheduling/priorityclasses.js';


export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (e) {
    if (e instanceof StatusError && (e.reason === 'AlreadyExists' || (e.code === 422 && /already allocated/.test(e.message)))) return;
    throw e;
  }
}

export async function bootstrap(registries: Registries, ctx: RequestContext, apiserver: { address: string; port: number }): Promise<void> {
  const ns = registries.get('', 'namespaces')!;
  for (const name of systemNamespaces) await ensure(() => ns.create({ metadata: { name } }, ctx));
  // Upstream's scheduling/bootstrap-system-priority-classes post-start hook.
  const priorityClasses = registries.get('scheduling.k8s.io', 'priorityclasses')!;
  for (const pc of SYSTEM_PRIORITY_CLASSES) await ensure(() => priorityClasses.create(structuredClone(pc), ctx));

  const firstIP = formatIPv4(registries.serviceIPs.range.first);
  const services = registries.get('', 'services')!;
  await ensure(() => services.create({
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP: firstIP, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: apiserver.port }], sessionAffinity: 'None' },
  } as KubeObject, ctx));
  await reconcile(() => services.update('default', 'kubernetes', (svc) => {
    const ports = (svc.spec?.ports ?? []) as Fields[];
    svc.spec.ports = ports.map((p) => (p.name === 'https' ? { ...p, targetPort: apiserver.port } : p));
    return svc;
  }, ctx));

  const endpoints = registries.get('', 'endpoints')!;
  const subsets = [{ addresses: [{ ip: apiserver.address }], ports: [{ name: 'https', port: apiserver.port, protocol: 'TCP' }] }];
  await ensure(() => endpoints.create({ metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } }, subsets } as KubeObject, ctx));
  await reconcile(() => endpoints.update('default', 'kubernetes', (ep) => {
    const [subset] = (ep.subsets ?? []) as Fields[];
    const kept = subset?.ports?.[0]?.port === apiserver.port ? (subset.addresses ?? []) as Fields[] : [];
    const addresses = kept.some((a) => a.ip === apiserver.address) ? kept : [...kept, { ip: apiserver.address }];
    ep.subsets = [{ addresses, ports: subsets[0].ports }];
    return ep;
  }, ctx));

  const slices = registries.get('discovery.k8s.io', 'endpointslices')!;
  await ensure(() => slices.create({
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes', 'endpointslice.kubernetes.io/managed-by': 'capstan-apiserver' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [apiserver.address], conditions: { ready: true } }],
    ports: [{ name: 'https', port: apiserver.port, protocol: 'TCP' }],
  } as KubeObject, ctx));
  await reconcile(() => slices.update('default', 'kubernetes', (slice) => {
    const kept = (slice.ports as Fields[] | undefined)?.[0]?.port === apiserver.port ? (slice.endpoints ?? []) as Fields[] : [];
    slice.endpoints = kept.some((e) => (e.addresses ?? []).includes(apiserver.address)) ? kept : [...kept, { addresses: [apiserver.address], conditions: { ready: true } }];
    slice.ports = [{ name: 'https', port: apiserver.port, protocol: 'TCP' }];
    return slice;
  }, ctx));
}

/** An update that leaves an unchanged object alone (the registry writes nothing then). */
async function reconcile(update: () => Promise<unknown>): Promise<void> {
  try {
    await update();
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return;
    throw e;
  }
}
