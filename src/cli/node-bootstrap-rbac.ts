// The RBAC bindings `kubeadm init` creates for node joining (its bootstrap-token phase), which
// are not in the API server's default policy: bootstrap tokens made for joining (extra group
// system:bootstrappers:kubeadm:default-node-token) may create CSRs, have their kubelet client
// CSRs approved, and nodes may renew their own client certificates.
import { isAlreadyExists, resources, type ClientsetAPI } from '../client/index.js';

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
