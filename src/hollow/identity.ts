// Each hollow node's own identity toward the API server: `system:node:<name>` in
// `system:nodes`, as a kubelet's certificate says, so the Node authorizer and NodeRestriction
// apply to it. The process's own clients impersonate it (Impersonate-User/-Group) over their
// one connection pool: no key, certificate or TLS connection per node, so thousands of nodes
// cost what one does. The process's identity needs `impersonate` on those users and the
// group (hollowNodesPolicy); its shared informers (every hollow Node, every bound pod) read
// as that identity, which no single node could.
import { Clientset, isAlreadyExists, resources, type ClientsetAPI } from '../client/index.js';
import type { KubeObject } from '../api/object.js';

export const NODES_GROUP = 'system:nodes';
export const nodeUser = (name: string): string => `system:node:${name}`;

/** `clients` acting as node `name`; a client without a REST transport (a fake) stays itself. */
export function impersonatingNode(clients: ClientsetAPI, name: string): ClientsetAPI {
  if (!(clients instanceof Clientset)) return clients;
  return new Clientset(clients.rest.impersonating(nodeUser(name), [NODES_GROUP]), clients.rest.userAgent);
}

export function cachedPerNode(make: (name: string) => ClientsetAPI): (name: string) => ClientsetAPI {
  const cache = new Map<string, ClientsetAPI>();
  return (name) => {
    let c = cache.get(name);
    if (!c) cache.set(name, (c = make(name)));
    return c;
  };
}

const RBAC = 'rbac.authorization.k8s.io';

/**
 * The ClusterRole and binding a hollow-nodes process of identity `user` needs: watch the
 * Nodes and pods it serves, and impersonate exactly its nodes' users and their group.
 */
export function hollowNodesPolicy(user: string, names: readonly string[]): KubeObject[] {
  const name = 'system:capstan:hollow-nodes';
  return [
    {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name },
      rules: [
        { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] },
        // No names must mean no rule: RBAC reads empty resourceNames as every name.
        ...(names.length ? [
          { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: names.map(nodeUser) },
          { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: [NODES_GROUP] },
        ] : []),
      ],
    },
    {
      apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: user }],
    },
  ];
}

/** Creates or replaces hollowNodesPolicy's objects with `admin` (capstan up does, before starting the nodes). */
export async function ensureHollowNodesPolicy(admin: ClientsetAPI, user: string, names: readonly string[]): Promise<void> {
  const [role, binding] = hollowNodesPolicy(user, names);
  for (const [obj, api] of [[role, admin.resource(resources.clusterroles)], [binding, admin.resource(resources.clusterrolebindings)]] as const) {
    try {
      await api.create(undefined, obj as never);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const cur = await api.get(undefined, obj.metadata.name as string);
      await api.update({ ...cur, ...obj, metadata: { ...cur.metadata, ...obj.metadata } } as never);
    }
  }
}
