// Pod admission on the node, after upstream's predicateAdmitHandler: before the kubelet
// runs a pod it re-checks what the scheduler checked — the pod count against the node's
// `pods`, requests against allocatable minus the admitted pods' requests, node affinity and
// nodeSelector, host ports, and (except for static pods) untolerated NoExecute taints. The
// first failure names the rejection; a rejected pod goes Failed and never runs.
import { compileNodeSelectorTerms, anyTermMatches } from '../api/core/node-selector.js';
import { podRequests } from '../api/core/pod-resources.js';
import { tolerates, type Taint, type Toleration } from '../api/core/taints.js';
import { milliValue } from '../util/index.js';
import { isStaticPod } from './static-pods.js';
import type { Node, Pod } from '../api/kinds.js';

export type Admission = { admit: true } | { admit: false; reason: string; message: string };

const OUT_OF: Record<string, string> = { cpu: 'OutOfcpu', memory: 'OutOfmemory', 'ephemeral-storage': 'OutOfephemeral-storage', pods: 'OutOfpods' };

const insufficient = (resource: string, requested: number, used: number, capacity: number): Admission => ({
  admit: false, reason: OUT_OF[resource] ?? `OutOf${resource}`,
  message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
});

const predicate = (name: string, desc: string): Admission => ({ admit: false, reason: name, message: `Predicate ${name} failed: ${desc}` });

/** Requests in upstream's units: millicores for cpu, whole units (bytes) otherwise. */
function requests(pod: Pod): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of podRequests(pod.spec)) out.set(k, k === 'cpu' ? v : Math.ceil(v / 1000));
  return out;
}

function allocatable(node: Node, name: string): number {
  const q = (node.status?.allocatable ?? {})[name];
  return name === 'cpu' ? milliValue(q, 0) : Math.floor(milliValue(q, 0) / 1000);
}

function affinityMatches(pod: Pod, node: Node): boolean {
  const labels: Record<string, string> = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  try {
    return anyTermMatches(compileNodeSelectorTerms(terms), node.metadata.name as string, labels);
  } catch { // an invalid term matches no node, as in the scheduler
    return false;
  }
}

function hostPorts(pod: Pod): string[] {
  return (pod.spec?.containers ?? []).flatMap((c) => (c.ports ?? [])
    .filter((p) => p.hostPort)
    .map((p) => `${p.protocol ?? 'TCP'}/${p.hostIP || '0.0.0.0'}/${p.hostPort}`));
}

function portsConflict(mine: string[], theirs: string[]): boolean {
  for (const a of mine) {
    const [proto, ip, port] = a.split('/');
    for (const b of theirs) {
      const [p2, ip2, port2] = b.split('/');
      if (proto === p2 && port === port2 && (ip === ip2 || ip === '0.0.0.0' || ip2 === '0.0.0.0')) return true;
    }
  }
  return false;
}

/** Whether `pod` may run on `node` beside `admitted` (the node's other active pods). */
export function admitPod(pod: Pod, node: Node, admitted: Pod[]): Admission {
  const osLabel = pod.metadata.labels?.['kubernetes.io/os'];
  if (osLabel !== undefined && osLabel !== 'linux') {
    return { admit: false, reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label" };
  }
  if (pod.spec?.os?.name && pod.spec.os.name !== 'linux') {
    return { admit: false, reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" };
  }
  const maxPods = allocatable(node, 'pods');
  if (admitted.length + 1 > maxPods) return insufficient('pods', 1, admitted.length, maxPods);
  const want = requests(pod);
  const used = new Map<string, number>();
  for (const p of admitted) for (const [k, v] of requests(p)) used.set(k, (used.get(k) ?? 0) + v);
  for (const name of ['cpu', 'memory', 'ephemeral-storage', ...[...want.keys()].filter((k) => !OUT_OF[k]).sort()]) {
    const r = want.get(name) ?? 0;
    if (r <= 0) continue;
    // Extended resources the node does not know are cluster-level: upstream drops them.
    if (!OUT_OF[name] && (node.status?.allocatable ?? {})[name] === undefined) continue;
    const cap = allocatable(node, name);
    const u = used.get(name) ?? 0;
    if (r > cap - u) return insufficient(name, r, u, cap);
  }
  if (!affinityMatches(pod, node)) return predicate('NodeAffinity', "node(s) didn't match Pod's node affinity/selector");
  if (pod.spec?.nodeName && pod.spec.nodeName !== node.metadata.name) return predicate('NodeName', "node(s) didn't match the requested node name");
  const mine = hostPorts(pod);
  if (mine.length && portsConflict(mine, admitted.flatMap(hostPorts))) {
    return predicate('NodePorts', "node(s) didn't have free ports for the requested pod ports");
  }
  if (!isStaticPod(pod)) {
    const tolerations = (pod.spec?.tolerations ?? []) as Toleration[];
    // The kubelet acts on NoExecute taints only; NoSchedule is the scheduler's to honour.
    const untolerated = ((node.spec?.taints ?? []) as Taint[]).find((t) => t.effect === 'NoExecute' && !tolerations.some((x) => tolerates(x, t)));
    if (untolerated) return predicate('TaintToleration', "node(s) had taints that the pod didn't tolerate");
  }
  return { admit: true };
}
