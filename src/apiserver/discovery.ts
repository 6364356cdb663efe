// Discovery: which groups, versions and resources this server has, in the legacy form
// (APIVersions, APIGroupList, APIResourceList) and the aggregated v2/v2beta1 form kubectl
// 1.27+ prefers. Both are computed once from the resource list.
import { createHash } from 'node:crypto';
import type { GenericRegistry } from './registry/index.js';

export interface ExtraResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface SubresourceInfo {
  name: string;
  kind: string;
  group: string;
  version: string;
  verbs: string[];
}

export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources: SubresourceInfo[];
  /** Served from a CustomResourceDefinition. */
  customResource?: boolean;
}

export function resourceInfos(registries: GenericRegistry[], extra: ExtraResource[]): ResourceInfo[] {
  const out: ResourceInfo[] = [];
  for (const r of registries) {
    const d = r.def;
    for (const v of d.versions) {
      const subs: SubresourceInfo[] = [];
      if (d.statusStrategy) subs.push({ name: 'status', kind: d.kind, group: d.group, version: v.version, verbs: ['get', 'patch', 'update'] });
      if (d.scale) subs.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
      for (const s of d.extraSubresources ?? []) {
        if (s === 'binding') subs.push({ name: 'binding', kind: 'Binding', group: '', version: 'v1', verbs: ['create'] });
        if (s === 'eviction') subs.push({ name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] });
        if (s === 'token') subs.push({ name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] });
        if (s === 'approval') subs.push({ name: 'approval', kind: d.kind, group: d.group, version: v.version, verbs: ['get', 'patch', 'update'] });
        if (s === 'ephemeralcontainers') subs.push({ name: 'ephemeralcontainers', kind: d.kind, group: d.group, version: v.version, verbs: ['get', 'patch', 'update'] });
        if (s === 'finalize') subs.push({ name: 'finalize', kind: d.kind, group: d.group, version: v.version, verbs: ['update'] });
      }
      // Served by proxying to the pod's kubelet (handlers/proxy.ts).
      if (d.group === '' && d.resource === 'pods') {
        subs.push({ name: 'log', kind: 'Pod', group: '', version: v.version, verbs: ['get'] });
        subs.push({ name: 'exec', kind: 'PodExecOptions', group: '', version: v.version, verbs: ['create', 'get'] });
        subs.push({ name: 'attach', kind: 'PodAttachOptions', group: '', version: v.version, verbs: ['create', 'get'] });
      }
      out.push({ group: d.group, version: v.version, resource: d.resource, singular: d.singular, kind: d.kind, namespaced: d.namespaced, verbs: allVerbs, shortNames: d.shortNames, categories: d.categories, subresources: subs });
    }
  }
  for (const e of extra) out.push({ ...e, singular: e.kind.toLowerCase(), subresources: [] });
  return out;
}

function storageVersionHash(r: ResourceInfo): string {
  return createHash('sha256').update(`${r.group}/${r.version}/${r.kind}`).digest('base64').slice(0, 11);
}

/** Group names with their versions, preferred version first. */
function groupsOf(infos: ResourceInfo[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of infos) {
    const vs = groups.get(r.group) ?? [];
    if (!vs.includes(r.version)) vs.push(r.version);
    groups.set(r.group, vs);
  }
  for (const vs of groups.values()) vs.sort(compareVersions);
  return groups;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    return [Number(m[1]), m[2] === 'beta' ? 1 : m[2] === 'alpha' ? 0 : 2, Number(m[3] ?? 0)];
  };
  const [am, as, an] = parse(a), [bm, bs, bn] = parse(b);
  return bs - as || bm - am || bn - an;
}

export class Discovery {
  constructor(private infos: ResourceInfo[], private serverAddress: () => string) {}

  apiVersions() {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }] };
  }

  private groupEntry(name: string, versions: string[]) {
    const vs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions: vs, preferredVersion: vs[0] };
  }

  apiGroupList() {
    const groups = [...groupsOf(this.infos)].filter(([g]) => g !== '').map(([g, vs]) => this.groupEntry(g, vs));
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }

  apiGroup(group: string) {
    const vs = groupsOf(this.infos).get(group);
    return vs && group ? { kind: 'APIGroup', apiVersion: 'v1', ...this.groupEntry(group, vs) } : null;
  }

  apiResourceList(group: string, version: string) {
    const rs = this.infos.filter((r) => r.group === group && r.version === version);
    if (!rs.length) return null;
    const resources = [];
    for (const r of rs) {
      resources.push({
        name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}), ...(r.categories ? { categories: r.categories } : {}),
        storageVersionHash: storageVersionHash(r),
      });
      for (const s of r.subresources) {
        resources.push({ name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: s.verbs, ...(s.group !== group || s.version !== version ? { group: s.group, version: s.version } : {}) });
      }
    }
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
  }

  /** Aggregated discovery for `/api` (legacy: true) or `/apis`. */
  aggregated(legacy: boolean, apiVersion: 'v2' | 'v2beta1') {
    const items = [];
    for (const [group, versions] of groupsOf(this.infos)) {
      if ((group === '') !== legacy) continue;
      items.push({
        metadata: { name: group, creationTimestamp: null },
        versions: versions.map((version) => ({
          version,
          freshness: 'Current',
          resources: this.infos.filter((r) => r.group === group && r.version === version).map((r) => ({
            resource: r.resource,
            responseKind: { group: r.group, version: r.version, kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: r.singular,
            verbs: r.verbs,
            ...(r.shortNames ? { shortNames: r.shortNames } : {}),
            ...(r.categories ? { categories: r.categories } : {}),
            ...(r.subresources.length ? { subresources: r.subresources.map((s) => ({ subresource: s.name, responseKind: { group: s.group, version: s.version, kind: s.kind }, verbs: s.verbs })) } : {}),
          })),
        })),
      });
    }
    return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${apiVersion}`, metadata: {}, items };
  }
}
