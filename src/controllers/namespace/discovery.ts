// Which namespaced resources a namespace's deletion must empty. Asked of the server's
// discovery documents (`/api/v1`, `/apis`, `/apis/<group>/<preferred version>`) so that
// resources added later (CRDs) are covered too; the static table serves clients without a
// server behind them (the fake clientset of unit tests).
import { resources, type RESTClient, type ResourceType } from '../../client/index.js';

export interface DiscoveryResult {
  /** Namespaced resources that can be listed and deleted, one version per group. */
  types: ResourceType[];
  /** Group versions whose resource list could not be read (`apps/v1: ...`). */
  failures: string[];
}

export interface ResourceDiscovery {
  namespacedDeletable(): Promise<DiscoveryResult>;
}

interface APIResource { name: string; namespaced: boolean; kind: string; verbs?: string[] }

function deletable(group: string, version: string, list: { resources?: APIResource[] }): ResourceType[] {
  return (list.resources ?? [])
    .filter((r) => r.namespaced && !r.name.includes('/') && (r.verbs ?? []).includes('delete') && (r.verbs ?? []).includes('list'))
    .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: true }));
}

export class ServerDiscovery implements ResourceDiscovery {
  constructor(private rest: RESTClient) {}

  async namespacedDeletable(): Promise<DiscoveryResult> {
    const failures: string[] = [];
    const groupVersions: { group: string; version: string }[] = [{ group: '', version: 'v1' }];
    try {
      const list = await this.rest.request<{ groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[] }>('GET', '/apis');
      for (const g of list.groups ?? []) {
        const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
        if (version) groupVersions.push({ group: g.name, version });
      }
    } catch (e) {
      failures.push(`/apis: ${(e as Error).message}`);
    }
    const lists = await Promise.all(groupVersions.map(async ({ group, version }) => {
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      try {
        return deletable(group, version, await this.rest.request('GET', path));
      } catch (e) {
        failures.push(`${group ? `${group}/` : ''}${version}: ${(e as Error).message}`);
        return [];
      }
    }));
    return { types: lists.flat(), failures };
  }
}

/** The resource types capstan's client knows, for tests without a server. */
export class StaticDiscovery implements ResourceDiscovery {
  constructor(private types: ResourceType[] = Object.values(resources).filter((r) => r.namespaced)) {}

  async namespacedDeletable(): Promise<DiscoveryResult> {
    return { types: [...this.types], failures: [] };
  }
}
