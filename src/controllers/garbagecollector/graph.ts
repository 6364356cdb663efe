// The garbage collector's view of ownership: every object it watches, by uid, with its owner
// references, and the reverse index owner uid → dependents. Owners need not be in the graph
// (not yet observed, or of a kind not watched): the collector asks the API server then.
import type { KubeObject, OwnerReference } from '../../api/object.js';
import type { ResourceType } from '../../client/index.js';

export interface GraphNode {
  uid: string;
  type: ResourceType;
  namespace?: string;
  name: string;
  owners: OwnerReference[];
  deletionTimestamp?: string;
  finalizers: string[];
}

export function toNode(obj: KubeObject, type: ResourceType): GraphNode {
  return {
    uid: obj.metadata.uid as string, type, namespace: obj.metadata.namespace, name: obj.metadata.name as string,
    owners: (obj.metadata.ownerReferences ?? []).map((r) => ({ ...r })),
    deletionTimestamp: obj.metadata.deletionTimestamp, finalizers: [...(obj.metadata.finalizers ?? [])],
  };
}

export function deletingWith(node: GraphNode | undefined, finalizer: string): boolean {
  return !!node?.deletionTimestamp && node.finalizers.includes(finalizer);
}

export class Graph {
  private nodes = new Map<string, GraphNode>();
  private dependents = new Map<string, Set<string>>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Stores `node`, returning what was there before. */
  upsert(node: GraphNode): GraphNode | undefined {
    const old = this.nodes.get(node.uid);
    if (old) this.unlink(old);
    this.nodes.set(node.uid, node);
    for (const r of node.owners) {
      let set = this.dependents.get(r.uid);
      if (!set) this.dependents.set(r.uid, (set = new Set()));
      set.add(node.uid);
    }
    return old;
  }

  remove(uid: string): GraphNode | undefined {
    const old = this.nodes.get(uid);
    if (!old) return undefined;
    this.unlink(old);
    this.nodes.delete(uid);
    return old;
  }

  private unlink(node: GraphNode): void {
    for (const r of node.owners) {
      const set = this.dependents.get(r.uid);
      set?.delete(node.uid);
      if (set && !set.size) this.dependents.delete(r.uid);
    }
  }

  /** Observed objects naming `ownerUID` among their owners. */
  dependentsOf(ownerUID: string): GraphNode[] {
    return [...(this.dependents.get(ownerUID) ?? [])].map((u) => this.nodes.get(u)!).filter(Boolean);
  }

  get size(): number {
    return this.nodes.size;
  }
}
