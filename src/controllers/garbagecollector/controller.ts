// The garbage collector: deletes objects whose owners are all gone (background cascade),
// holds an owner deleted in the foreground until its blocking dependents are gone, and
// orphans the dependents of an owner deleted with the orphan finalizer.
//
// Decisions that delete are confirmed against the API server, never the cache alone: an owner
// missing from the graph is looked up by name and uid with a live GET, and deletes carry a
// uid precondition, so a stale cache or a recreated name never costs a live object.
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { parseAPIVersion } from '../../api/object.js';
import { isConflict, isNotFound, resources, type ResourceType, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { CustomResourceMonitor } from './custom-resources.js';
import { deletingWith, Graph, toNode, type GraphNode } from './graph.js';

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';

/** The built-in kinds the collector watches (the kinds that own or are owned in practice); custom resources are added as their CRDs are Established. */
export const monitoredResources: ResourceType[] = [
  resources.pods, resources.replicasets, resources.deployments, resources.services, resources.endpoints,
  resources.endpointslices, resources.configmaps, resources.secrets, resources.serviceaccounts,
  resources.leases, resources.nodes,
  resources.jobs, resources.cronjobs,
  resources.statefulsets, resources.daemonsets, resources.controllerrevisions, resources.persistentvolumeclaims,
];

type OwnerState = 'solid' | 'dangling' | 'waiting';

export class GarbageCollector extends QueueController {
  readonly graph = new Graph();
  private readonly byKind = new Map<string, ResourceType>();
  readonly customResources?: CustomResourceMonitor;

  constructor(ctx: ControllerContext, types: ResourceType[] = monitoredResources, o: { customResources?: boolean } = {}) {
    super('garbagecollector', ctx);
    for (const type of types) this.monitor(type, ctx.informers.informerFor(type));
    if (o.customResources ?? true) {
      this.customResources = new CustomResourceMonitor(ctx, {
        watching: (type, informer) => this.monitor(type, informer),
        // A CRD whose storage version changed is watched anew before the old informer has
        // stopped: forget only what the new one has not taken over.
        stopped: (type, last) => {
          const key = `${type.group}/${type.kind}`;
          if (this.byKind.get(key) === type) this.byKind.delete(key);
          for (const obj of last) if (this.graph.get(obj.metadata.uid as string)?.type === type) this.gone(obj);
        },
      });
    }
  }

  private monitor(type: ResourceType, informer: SharedInformer<KubeObject>): void {
    this.byKind.set(`${type.group}/${type.kind}`, type);
    informer.addEventHandler({
      onAdd: (obj) => this.observed(obj, type),
      onUpdate: (_old, obj) => this.observed(obj, type),
      onDelete: (obj) => this.gone(obj),
    });
  }

  override async stop(): Promise<void> {
    await this.customResources?.stop();
    await super.stop();
  }

  private typeOf(ref: OwnerReference): ResourceType | undefined {
    return this.byKind.get(`${parseAPIVersion(ref.apiVersion).group}/${ref.kind}`);
  }

  private observed(obj: KubeObject, type: ResourceType): void {
    const node = toNode(obj, type);
    if (!node.uid) return;
    const old = this.graph.upsert(node);
    if (node.owners.length || deletingWith(node, orphanFinalizer) || deletingWith(node, foregroundFinalizer)) this.enqueue(node.uid);
    // An owner waiting in the foreground may be unblocked by a dependent dropping it.
    for (const r of old?.owners ?? []) if (!node.owners.some((n) => n.uid === r.uid)) this.enqueueIfForeground(r.uid);
    if (node.deletionTimestamp) for (const r of node.owners) this.enqueueIfForeground(r.uid);
  }

  private gone(obj: KubeObject): void {
    const uid = obj.metadata.uid as string;
    const old = this.graph.remove(uid);
    for (const dep of this.graph.dependentsOf(uid)) this.enqueue(dep.uid);
    for (const r of old?.owners ?? obj.metadata.ownerReferences ?? []) this.enqueueIfForeground(r.uid);
  }

  private enqueueIfForeground(uid: string): void {
    if (deletingWith(this.graph.get(uid), foregroundFinalizer)) this.enqueue(uid);
  }

  private api(node: GraphNode) {
    return this.ctx.clients.resource(node.type);
  }

  async reconcile(uid: string): Promise<ReconcileResult | void> {
    const node = this.graph.get(uid);
    if (!node) return;
    if (deletingWith(node, orphanFinalizer)) return this.orphanDependents(node);
    if (deletingWith(node, foregroundFinalizer)) return this.deleteDependentsFirst(node);
    if (node.deletionTimestamp || !node.owners.length) return;
    return this.collectIfOwnersGone(node);
  }

  /** The owner's state as the API server has it (the graph first; a live GET when it is not there). */
  private async ownerState(node: GraphNode, ref: OwnerReference): Promise<OwnerState> {
    const cached = this.graph.get(ref.uid);
    const waiting = (o: { deletionTimestamp?: string; finalizers?: string[] }) =>
      !!o.deletionTimestamp && (o.finalizers ?? []).includes(foregroundFinalizer) && ref.blockOwnerDeletion === true;
    if (cached) return waiting(cached) ? 'waiting' : 'solid';
    const type = this.typeOf(ref);
    // A kind we cannot look up might exist: never delete on a guess.
    if (!type) return 'solid';
    try {
      const live = await this.ctx.clients.resource(type).get(type.namespaced ? node.namespace : undefined, ref.name);
      if (live.metadata.uid !== ref.uid) return 'dangling';
      return waiting(live.metadata) ? 'waiting' : 'solid';
    } catch (e) {
      if (isNotFound(e)) return 'dangling';
      throw e;
    }
  }

  private async collectIfOwnersGone(node: GraphNode): Promise<void> {
    const states = await Promise.all(node.owners.map(async (r) => [r, await this.ownerState(node, r)] as const));
    const solid = states.filter(([, s]) => s === 'solid');
    const gone = states.filter(([, s]) => s !== 'solid').map(([r]) => r.uid);
    if (!gone.length) return;
    if (solid.length) {
      // Some owner still holds it: just drop the references to the others.
      await this.updateMeta(node, (m) => {
        const refs = (m.ownerReferences ?? []).filter((r) => !gone.includes(r.uid));
        return { ownerReferences: refs.length ? refs : null };
      });
      return;
    }
    const waiting = states.some(([, s]) => s === 'waiting');
    this.log.info('deleting object whose owners are gone', { uid: node.uid, resource: node.type.resource, namespace: node.namespace, name: node.name, foreground: waiting });
    await this.deleteNode(node, waiting ? 'Foreground' : 'Background');
  }

  private async deleteNode(node: GraphNode, propagationPolicy: 'Foreground' | 'Background'): Promise<void> {
    try {
      await this.api(node).delete(node.namespace, node.name, { propagationPolicy, preconditions: { uid: node.uid } });
    } catch (e) {
      // Gone already, or the name now belongs to another object: nothing to do.
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  }

  /** Foreground: delete blocking dependents (in the foreground too) and only then let the owner go. */
  private async deleteDependentsFirst(node: GraphNode): Promise<ReconcileResult | void> {
    const blocking = this.graph.dependentsOf(node.uid).filter((d) => d.owners.some((r) => r.uid === node.uid && r.blockOwnerDeletion === true));
    for (const dep of blocking) {
      if (!dep.deletionTimestamp) await this.deleteNode(dep, 'Foreground');
    }
    if (blocking.length) return;
    await this.removeFinalizer(node, foregroundFinalizer);
  }

  private async orphanDependents(node: GraphNode): Promise<void> {
    for (const dep of this.graph.dependentsOf(node.uid)) {
      await this.updateMeta(dep, (m) => {
        const refs = (m.ownerReferences ?? []).filter((r) => r.uid !== node.uid);
        return { ownerReferences: refs.length ? refs : null };
      });
    }
    await this.removeFinalizer(node, orphanFinalizer);
  }

  private removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    return this.updateMeta(node, (m) => {
      if (!(m.finalizers ?? []).includes(finalizer)) return undefined;
      const rest = (m.finalizers ?? []).filter((f) => f !== finalizer);
      return { finalizers: rest.length ? rest : null };
    });
  }

  /**
   * Read-modify-write of metadata on the live object with its resourceVersion as guard;
   * `change` returns the merge-patch of metadata, or undefined when nothing is to change.
   */
  private async updateMeta(node: GraphNode, change: (m: KubeObject['metadata']) => Record<string, unknown> | undefined): Promise<void> {
    const api = this.api(node);
    for (let attempt = 0; ; attempt++) {
      let live: KubeObject;
      try {
        live = await api.get(node.namespace, node.name);
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      if (live.metadata.uid !== node.uid) return;
      const patch = change(live.metadata);
      if (!patch) return;
      try {
        await api.patch(node.namespace, node.name, 'merge', { metadata: { ...patch, resourceVersion: live.metadata.resourceVersion } });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e) || attempt >= 5) throw e;
      }
    }
  }
}
