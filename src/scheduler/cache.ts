// The scheduler's view of the cluster: NodeInfos with running totals, updated from informer
// events and from the scheduler's own decisions. A pod is "assumed" on its node the moment
// it is chosen, so the next decision already counts it, and confirmed when the informer
// shows it bound; a failed bind forgets it.
//
// Contract: only the scheduler's event handlers and scheduling loop call this, on the one
// JS thread; PodInfos handed in are not changed afterwards.
import { NodeInfo } from './nodeinfo.js';
import { newPodInfo, type PodInfo } from './podinfo.js';
import type { Node, Pod } from '../api/kinds.js';

interface PodState {
  info: PodInfo;
  nodeName: string;
  assumed: boolean;
}

export class SchedulerCache {
  private nodes = new Map<string, NodeInfo>();
  /** Nodes that exist (have a Node object), in a stable order the sampler walks. */
  private list: NodeInfo[] = [];
  private listIndex = new Map<string, number>();
  private pods = new Map<string, PodState>();
  /** Per controlling owner UID, its pods per node: spreading reads this instead of every node's counts. */
  private owners = new Map<string, Map<NodeInfo, number>>();

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
    n.setNode(node);
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
    n.setNode(undefined);
    // Pods still bound there keep their NodeInfo until they are deleted too.
    if (!n.pods.size) this.nodes.delete(name);
  }

  /** Pods of an owner per node (do not modify). */
  ownerNodes(ownerUID: string): ReadonlyMap<NodeInfo, number> | undefined {
    return this.owners.get(ownerUID);
  }

  private place(info: PodInfo, n: NodeInfo): void {
    n.addPod(info);
    if (!info.ownerUID) return;
    let m = this.owners.get(info.ownerUID);
    if (!m) this.owners.set(info.ownerUID, (m = new Map()));
    m.set(n, (m.get(n) ?? 0) + 1);
  }

  private unplace(info: PodInfo, n: NodeInfo): void {
    n.removePod(info);
    if (!info.ownerUID) return;
    const m = this.owners.get(info.ownerUID);
    const c = (m?.get(n) ?? 0) - 1;
    if (c > 0) m!.set(n, c);
    else m?.delete(n);
    if (m && !m.size) this.owners.delete(info.ownerUID);
  }

  isAssumed(uid: string): boolean {
    return this.pods.get(uid)?.assumed ?? false;
  }

  podCount(): number {
    return this.pods.size;
  }

  assumePod(info: PodInfo, nodeName: string): void {
    if (this.pods.has(info.uid)) throw new Error(`pod ${info.key} is already in the cache`);
    this.pods.set(info.uid, { info, nodeName, assumed: true });
    this.place(info, this.nodeInfo(nodeName));
  }

  /** Undoes assumePod after a failed bind; a pod the informer has confirmed stays. */
  forgetPod(info: PodInfo): void {
    const s = this.pods.get(info.uid);
    if (!s || !s.assumed) return;
    this.drop(info.uid, s);
  }

  private drop(uid: string, s: PodState): void {
    this.pods.delete(uid);
    const n = this.nodes.get(s.nodeName);
    if (!n) return;
    this.unplace(s.info, n);
    if (!n.node && !n.pods.size) this.nodes.delete(s.nodeName);
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
    this.pods.set(uid, { info, nodeName, assumed: false });
    this.place(info, this.nodeInfo(nodeName));
  }

  removePod(pod: Pod): void {
    const uid = pod.metadata.uid as string;
    const s = this.pods.get(uid);
    if (s) this.drop(uid, s);
  }
}
