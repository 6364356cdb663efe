// The NodeRestriction admission plugin (upstream plugin/pkg/admission/noderestriction): what
// the Node authorizer lets every kubelet do, this limits to the kubelet's own objects. A node
// may write only its own Node (not its taints, nor labels outside the kubelet's set), only
// its own Lease in kube-node-lease, only the status of pods bound to it, create only mirror
// pods bound to itself, and delete and evict only its own pods. Other users pass untouched.
import type { Fields, KubeObject } from '../../api/object.js';
import type { Pod } from '../../api/kinds.js';
import { isDeepStrictEqual } from 'node:util';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from '../admission.js';
import type { GenericRegistry } from '../registry/index.js';
import { nodeIdentity, NODE_LEASE_NAMESPACE } from '../authz/node.js';
import { podReferences } from '../authz/node-graph.js';

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

// Labels a kubelet sets on its own Node (k8s.io/kubelet/pkg/apis well_known_labels.go).
const kubeletLabels = new Set([
  'kubernetes.io/hostname', 'kubernetes.io/os', 'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type', 'node.kubernetes.io/instance-type', 'node.kubernetes.io/windows-build',
  'failure-domain.beta.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region', 'topology.kubernetes.io/zone',
  'beta.kubernetes.io/os', 'beta.kubernetes.io/arch',
]);
const kubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
const nodeRestrictionNamespace = 'node-restriction.kubernetes.io';

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (ns: string, of: string): boolean => ns === of || ns.endsWith(`.${of}`);

function isKubeletLabel(key: string): boolean {
  if (kubeletLabels.has(key)) return true;
  const ns = labelNamespace(key);
  return kubeletLabelNamespaces.some((allowed) => inNamespace(ns, allowed));
}

/** The label keys a node may not add, remove or change, sorted. */
export function forbiddenLabels(labels: Record<string, string> = {}, old: Record<string, string> = {}): string[] {
  const modified = new Set<string>();
  for (const [k, v] of Object.entries(labels)) if (old[k] !== v) modified.add(k);
  for (const [k, v] of Object.entries(old)) if (labels[k] !== v) modified.add(k);
  return [...modified].filter((k) => {
    const ns = labelNamespace(k);
    if (inNamespace(ns, nodeRestrictionNamespace)) return true;
    const kubernetesLabel = inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io');
    return kubernetesLabel && !isKubeletLabel(k);
  }).sort();
}

const denied = admissionForbidden;

export function nodeRestriction(pods: GenericRegistry, nodes: GenericRegistry): AdmissionPlugin {
  const getPod = async (namespace: string, name: string): Promise<KubeObject> => pods.get(namespace, name);

  async function admitPod(node: string, a: AdmissionAttributes): Promise<void> {
    switch (a.info.subresource) {
      case '': break;
      case 'status': return admitPodStatus(node, a);
      case 'eviction': return admitEviction(node, a);
      default: throw denied(a, `unexpected pod subresource "${a.info.subresource}", only 'status' and 'eviction' are allowed`);
    }
    if (a.operation === 'CREATE') return admitMirrorPod(node, a, a.object!);
    if (a.operation === 'DELETE') {
      const pod = a.oldObject ?? await getPod(a.info.namespace, a.info.name);
      if (pod.spec?.nodeName !== node) throw denied(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw denied(a, `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
  }

  async function admitMirrorPod(node: string, a: AdmissionAttributes, pod: KubeObject): Promise<void> {
    if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
      throw denied(a, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
    }
    if (pod.spec?.nodeName !== node) throw denied(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) throw denied(a, `node "${node}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw denied(a, `node "${node}" can only create pods with an owner reference set to itself`);
    }
    if (!owner.controller) throw denied(a, `node "${node}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion) throw denied(a, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const self = await nodes.get(undefined, node);
    if (owner.uid !== self.metadata.uid) throw denied(a, `node ${node} UID mismatch: expected ${owner.uid} got ${self.metadata.uid}`);
    const refs = podReferences(pod as Pod);
    const refers = (type: string) => refs.some((r) => r.startsWith(`${type}/`));
    if (pod.spec?.serviceAccountName) throw denied(a, `node "${node}" can not create pods that reference a service account`);
    if (refers('secret')) throw denied(a, `node "${node}" can not create pods that reference secrets`);
    if (refers('configmap')) throw denied(a, `node "${node}" can not create pods that reference configmaps`);
    const volumes = (pod.spec?.volumes ?? []) as Fields[];
    if (volumes.some((v) => (v.projected?.sources ?? []).some((s: Fields) => s.clusterTrustBundle))) {
      throw denied(a, `node "${node}" can not create pods that reference clustertrustbundles`);
    }
    if (refers('pvc')) throw denied(a, `node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  function admitPodStatus(node: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw denied(a, `unexpected operation "${a.operation}"`);
    const old = a.oldObject!, pod = a.object!;
    if (old.spec?.nodeName !== node) throw denied(a, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    if (!isDeepStrictEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {})) throw denied(a, `node "${node}" cannot update labels through pod status`);
  }

  async function admitEviction(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE') throw denied(a, `unexpected operation ${a.operation}`);
    const name = a.info.name || a.object?.metadata.name;
    if (!name) throw denied(a, 'could not determine pod from request data');
    const pod = await getPod(a.info.namespace, name);
    if (pod.spec?.nodeName !== node) throw denied(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  function admitNode(node: string, a: AdmissionAttributes): void {
    const requested = a.info.name || (a.operation === 'CREATE' ? a.object?.metadata.name ?? '' : '');
    if (requested !== node) throw denied(a, `node "${node}" is not allowed to modify node "${requested}"`);
    const obj = a.object;
    if (a.operation === 'CREATE' && obj) {
      if (obj.spec?.configSource) throw denied(a, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const bad = forbiddenLabels(obj.metadata.labels);
      if (bad.length) throw denied(a, `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
    }
    if (a.operation === 'UPDATE' && obj) {
      const old = a.oldObject!;
      if (obj.spec?.configSource && !isDeepStrictEqual(obj.spec.configSource, old.spec?.configSource)) {
        throw denied(a, `node "${node}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!isDeepStrictEqual(obj.spec?.taints ?? [], old.spec?.taints ?? [])) throw denied(a, `node "${node}" is not allowed to modify taints`);
      const bad = forbiddenLabels(obj.metadata.labels, old.metadata.labels);
      if (bad.length) throw denied(a, `is not allowed to modify labels: ${bad.join(', ')}`);
    }
  }

  function admitLease(node: string, a: AdmissionAttributes): void {
    if (a.info.namespace !== NODE_LEASE_NAMESPACE) throw denied(a, `can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    const name = a.operation === 'CREATE' ? a.object?.metadata.name : a.info.name;
    if (name !== node) throw denied(a, 'can only access node lease with the same name as the requesting node');
  }

  async function admitTokenRequest(node: string, a: AdmissionAttributes): Promise<void> {
    if (a.operation !== 'CREATE' || a.info.subresource !== 'token') return;
    const ref = a.object?.spec?.boundObjectRef;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw denied(a, 'node requested token not bound to a pod');
    if (!ref.uid) throw denied(a, 'node requested token with a pod binding without a uid');
    const pod = await getPod(a.info.namespace, ref.name);
    if (ref.uid !== pod.metadata.uid) throw denied(a, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    if (pod.spec?.nodeName !== node) throw denied(a, 'node requested token bound to a pod scheduled on a different node');
  }

  return {
    name: 'NodeRestriction',
    async validate(a) {
      if (a.operation === 'CONNECT') return;
      const { isNode, name: node } = nodeIdentity(a.user);
      if (!isNode) return;
      if (!node) throw denied(a, `could not determine node from user "${a.user.username}"`);
      switch (`${a.info.group}/${a.info.resource}`) {
        case '/pods': return admitPod(node, a);
        case '/nodes': return admitNode(node, a);
        case '/persistentvolumeclaims':
          if (a.info.subresource !== 'status') throw denied(a, 'may only update PVC status');
          return;
        case '/serviceaccounts': return admitTokenRequest(node, a);
        case 'coordination.k8s.io/leases': return admitLease(node, a);
      }
    },
  };
}
