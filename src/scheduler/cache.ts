// The scheduler's view of the cluster: NodeInfos with running totals, updated from informer
// events and from the scheduler's own decisions. A pod is "assumed" on its node the moment
// it is chosen, so the next decision already counts it, and confirmed when the informer
// shows it bound; a failed bind forgets it.
//
// Contract: only the scheduler's event handlers and scheduling loop call this, on the one
// JS thread; PodInfos handed in are not changed afterwards.
import { NodeInfo } from './nodeinfo.js';
import { newPodInfo, type PodInfo } from './podinfo.js';
import { LabelIndex, TermIndex, type ClusterView, type PlacedPod, type TermGroup, type TermKind } from './cluster.js';
import { MatchingPodsIndex, type MatchingPods } from './matching-pods.js';
import type { Selector } from '../api/labels.js';
import type { Node, Pod } from '../api/kinds.js';

interface PodState extends PlacedPod {
  nodeName: string;
  assumed: boolean;
}

export class SchedulerCache implements ClusterView {
  private nodes = new Map<string, NodeInfo>();
  /** Nodes that exist (have a Node object), in a stable order the sampler walks. */
  private list: NodeInfo[] = [];
  private listIndex = new Map<string, number>();
  private pods = new Map<string, PodState>();
  /** Per controlling owner UID, its pods per node: spreading reads this instead of every node's counts. */
  private owners = new Map<string, Map<NodeInfo, number>>();
  private labelIndex = new LabelIndex<PodState>();
  private terms = new TermIndex();
  private matching = new MatchingPodsIndex();
  private nominated = new Map<string, NodeInfo>();
  /** Per node label key, its values and how many nodes carry each. */
  private topology = new Map<string, Map<string, number>>();
  /** Labels of a namespace, for namespaceSelector in affinity terms (the scheduler sets it). */
  namespaceLabels: (ns: string) => Record<string, string> | undefined = () => undefined;

  get nodeCount(): number {
    return this.list.length;
  }

  /** The nodes to schedule onto; do not modify the array. */
  nodeList(): readonly NodeInfo[] {
    return this.list;
  }

  node(name: string): NodeInfo | undefined {
    return this.nodes.get(name);
  }

  private nodeInfo(name: string): NodeInfo {
    let n = this.nodes.get(name);
    if (!n) this.nodes.set(name, (n = new NodeInfo(name)));
    return n;
  }

  addNode(node: Node): void {
    const name = node.metadata.name as string;
    const n = this.nodeInfo(name);
    const relabel = n.pods.size > 0 && JSON.stringify(n.labels) !== JSON.stringify(node.metadata.labels ?? {});
    // Term counts are kept per topology value of the pods' nodes: a relabelled node moves them.
    if (relabel) for (const p of n.pods.values()) this.terms.account(p, n, -1);
    if (n.node) this.countTopology(n, -1);
    const before = n.labels;
    n.setNode(node);
    this.countTopology(n, 1);
    if (relabel) {
      for (const p of n.pods.values()) this.terms.account(p, n, 1);
      this.matching.relabelled(n, before);
    }
    if (!this.listIndex.has(name)) {
      this.listIndex.set(name, this.list.length);
      this.list.push(n);
    }
  }

  updateNode(node: Node): void {
    this.addNode(node);
  }

  removeNode(node: Node): void {
    const name = node.metadata.name as string;
    const n = this.nodes.get(name);
    if (!n) return;
    const i = this.listIndex.get(name);
    if (i !== undefined) {
      const last = this.list.pop()!;
      if (last !== n) { this.list[i] = last; this.listIndex.set(last.name, i); }
      this.listIndex.delete(name);
    }
    this.countTopology(n, -1);
    n.setNode(undefined);
    // Pods still bound there keep their NodeInfo until they are deleted too.
    if (!n.pods.size) this.nodes.delete(name);
  }

  private countTopology(n: NodeInfo, sign: 1 | -1): void {
    for (const [k, v] of Object.entries(n.labels)) {
      let m = this.topology.get(k);
      if (!m) this.topology.set(k, (m = new Map()));
      const c = (m.get(v) ?? 0) + sign;
      if (c > 0) m.set(v, c);
      else m.delete(v);
    }
  }

  topologyValues(key: string): ReadonlyMap<string, number> | undefined {
    return this.topology.get(key);
  }

  candidates(sel: Selector, namespaces?: ReadonlySet<string>): Iterable<PlacedPod> {
    return this.labelIndex.candidates(sel, namespaces);
  }

  matchingPods(namespace: string, sel: Selector, key: string, withTerminating = false): MatchingPods {
    return this.matching.get(namespace, sel, key, () => this.labelIndex.candidates(sel, new Set([namespace])), withTerminating);
  }

  termGroups(kind: TermKind): Iterable<TermGroup> {
    return this.terms.groups(kind);
  }

  /** Where a pod is placed (bound or assumed), if the cache has it. */
  placed(uid: string): PlacedPod | undefined {
    return this.pods.get(uid);
  }

  /** Pods of an owner per node (do not modify). */
  ownerNodes(ownerUID: string): ReadonlyMap<NodeInfo, number> | undefined {
    return this.owners.get(ownerUID);
  }

  private place(s: PodState): void {
    const { info, node: n } = s;
    n.addPod(info);
    this.labelIndex.add(s);
    this.matching.account(s, 1);
    this.terms.account(info, n, 1);
    if (!info.ownerUID) return;
    let m = this.owners.get(info.ownerUID);
    if (!m) this.owners.set(info.ownerUID, (m = new Map()));
    m.set(n, (m.get(n) ?? 0) + 1);
  }

  private unplace(s: PodState): void {
    const { info, node: n } = s;
    n.removePod(info);
    this.labelIndex.remove(s);
    this.matching.account(s, -1);
    this.terms.account(info, n, -1);
    if (!info.ownerUID) return;
    const m = this.owners.get(info.ownerUID);
    const c = (m?.get(n) ?? 0) - 1;
    if (c > 0) m!.set(n, c);
    else m?.delete(n);
    if (m && !m.size) this.owners.delete(info.ownerUID);
  }

  /** A pending pod nominated to a node (status.nominatedNodeName); '' clears it. */
  nominate(info: PodInfo, nodeName: string): void {
    const prev = this.nominated.get(info.uid);
    if (prev) prev.nominated.delete(info.uid);
    this.nominated.delete(info.uid);
    if (!nodeName) return;
    const n = this.nodeInfo(nodeName);
    n.nominated.set(info.uid, info);
    this.nominated.set(info.uid, n);
  }

  nominatedNode(uid: string): NodeInfo | undefined {
    return this.nominated.get(uid);
  }

  isAssumed(uid: string): boolean {
    return this.pods.get(uid)?.assumed ?? false;
  }

  podCount(): number {
    return this.pods.size;
  }

  assumePod(info: PodInfo, nodeName: string): void {
    if (this.pods.has(info.uid)) throw new Error(`pod ${info.key} is already in the cache`);
    const s: PodState = { info, nodeName, node: this.nodeInfo(nodeName), assumed: true };
    this.pods.set(info.uid, s);
    this.place(s);
  }

  /** Undoes assumePod after a failed bind; a pod the informer has confirmed stays. */
  forgetPod(info: PodInfo): void {
    const s = this.pods.get(info.uid);
    if (!s || !s.assumed) return;
    this.drop(info.uid, s);
  }

  private drop(uid: string, s: PodState): void {
    this.pods.delete(uid);
    const n = s.node;
    this.unplace(s);
    if (!n.node && !n.pods.size && this.nodes.get(s.nodeName) === n) this.nodes.delete(s.nodeName);
  }

  /** An assigned pod seen through the informer (added, or updated in any way). */
  addOrUpdatePod(pod: Pod): void {
    const uid = pod.metadata.uid as string;
    const nodeName = pod.spec?.nodeName as string;
    const s = this.pods.get(uid);
    if (s && s.nodeName === nodeName && s.info.pod.metadata.resourceVersion === pod.metadata.resourceVersion) {
      s.assumed = false;
      return;
    }
    if (s) this.drop(uid, s);
    const info = newPodInfo(pod);
    const placed: PodState = { info, nodeName, node: this.nodeInfo(nodeName), assumed: false };
    this.pods.set(uid, placed);
    this.place(placed);
  }

  removePod(pod: Pod): void {
    const uid = pod.metadata.uid as string;
    const s = this.pods.get(uid);
    if (s) this.drop(uid, s);
  }
}
