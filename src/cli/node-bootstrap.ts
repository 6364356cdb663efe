// What `kubeadm init` sets up for node joining (its bootstrap-token phase), which is not in the
// API server's default policy: bootstrap tokens made for joining (extra group
// system:bootstrappers:kubeadm:default-node-token) may create CSRs, have their kubelet client
// CSRs approved, and nodes may renew their own client certificates; the kube-public/cluster-info
// ConfigMap (server and CA, signed per token by the bootstrap signer) readable anonymously.
import { clusterInfo } from '../api/cluster-info.js';
import { isAlreadyExists, kubeconfigYAML, resources, type ClientsetAPI } from '../client/index.js';

/** The extra group of the bootstrap tokens `capstan token create` makes, as kubeadm's. */
export const NODE_BOOTSTRAP_TOKEN_GROUP = 'system:bootstrappers:kubeadm:default-node-token';

const bindings: Array<{ name: string; role: string; group: string }> = [
  { name: 'kubeadm:kubelet-bootstrap', role: 'system:node-bootstrapper', group: NODE_BOOTSTRAP_TOKEN_GROUP },
  { name: 'kubeadm:node-autoapprove-bootstrap', role: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', group: NODE_BOOTSTRAP_TOKEN_GROUP },
  { name: 'kubeadm:node-autoapprove-certificate-rotation', role: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', group: 'system:nodes' },
];

/** Creates the bindings that are missing; existing ones are left as an admin may have changed them. */
export async function ensureNodeBootstrapRBAC(clients: ClientsetAPI): Promise<void> {
  for (const b of bindings) {
    try {
      await clients.resource(resources.clusterrolebindings).create(undefined, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: b.name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: b.role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: b.group }],
      });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
}

const RBAC = 'rbac.authorization.k8s.io';

/** kube-public/cluster-info with a kubeconfig naming `server` and the CA, and anonymous read access to it. */
export async function ensureClusterInfo(clients: ClientsetAPI, server: string, caPem: string): Promise<void> {
  // A kubeconfig without credentials: the server and the CA are what a joining node learns.
  const kubeconfig = kubeconfigYAML({ server, caPem });
  const api = clients.resource(resources.configmaps);
  const existing = await api.get(clusterInfo.namespace, clusterInfo.name).catch(() => undefined);
  if (!existing) {
    await create(() => api.create(clusterInfo.namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: clusterInfo.name, namespace: clusterInfo.namespace }, data: { [clusterInfo.kubeconfigKey]: kubeconfig } }));
  } else if (existing.data?.[clusterInfo.kubeconfigKey] !== kubeconfig) {
    // The server's address may change between starts; the bootstrap signer re-signs.
    await api.update({ ...existing, data: { ...existing.data, [clusterInfo.kubeconfigKey]: kubeconfig } });
  }
  const name = 'kubeadm:bootstrap-signer-clusterinfo';
  await create(() => clients.resource(resources.roles).create(clusterInfo.namespace, {
    apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, namespace: clusterInfo.namespace },
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [clusterInfo.name], verbs: ['get'] }],
  }));
  await create(() => clients.resource(resources.rolebindings).create(clusterInfo.namespace, {
    apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name, namespace: clusterInfo.namespace },
    roleRef: { apiGroup: RBAC, kind: 'Role', name }, subjects: [{ apiGroup: RBAC, kind: 'User', name: 'system:anonymous' }],
  }));
}

async function create(f: () => Promise<unknown>): Promise<void> {
  try {
    await f();
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}
