// The KeyValueStore reconciler: makes the store's ConfigMap, headless Service, client Service
// and StatefulSet what the store asks for (creating what is missing, setting back what was
// changed by hand), reports readiness in status, and on deletion removes the children before
// letting the store go.
import { isDeepStrictEqual } from 'node:util';
import type { ObjectBase } from '../../src/api/object.js';
import type { StatefulSet } from '../../src/api/kinds.js';
import { isAlreadyExists, isNotFound, resources, type ResourceType } from '../../src/client/index.js';
import { isControlledBy, setCondition, type ReconcileContext, type Reconciler } from '../../src/operator/index.js';
import { HASH_ANNOTATION, desiredClientService, desiredConfigMap, desiredHeadlessService, desiredStatefulSet, names } from './children.js';
import { FINALIZER, keyValueStores, type KeyValueStore, type KeyValueStoreStatus } from './types.js';

type Child = ObjectBase & { metadata: { annotations?: Record<string, string>; ownerReferences?: { controller?: boolean; uid: string; kind: string; apiVersion: string; name: string }[] }; spec?: object; data?: Record<string, string> };
type Ctx = ReconcileContext<KeyValueStore>;

/** The child as it should be: created when missing, updated when its spec hash (or a StatefulSet's replicas) differs. */
async function ensure<T extends Child>(ctx: Ctx, kvs: KeyValueStore, type: ResourceType<T>, want: T): Promise<T> {
  const client = ctx.clients.resource(type);
  const ns = want.metadata.namespace;
  const current = ctx.lister(type).get(ns, want.metadata.name!);
  if (!current) {
    try {
      const created = await client.create(ns, want);
      ctx.event(kvs, 'Normal', 'Created', `Created ${type.kind} ${want.metadata.name}`);
      return created;
    } catch (e) {
      // The cache was behind: the next reconcile sees it.
      if (isAlreadyExists(e)) return client.get(ns, want.metadata.name!);
      throw e;
    }
  }
  if (!isControlledBy(current, kvs)) {
    const message = `${type.kind} ${want.metadata.name} already exists and is not managed by KeyValueStore ${kvs.metadata.name}`;
    ctx.event(kvs, 'Warning', 'ErrResourceExists', message);
    throw new Error(message);
  }
  const replicas = (o: Child) => (o.spec as { replicas?: number } | undefined)?.replicas;
  const drifted = current.metadata.annotations?.[HASH_ANNOTATION] !== want.metadata.annotations?.[HASH_ANNOTATION]
    || (replicas(want) !== undefined && replicas(current) !== replicas(want));
  if (!drifted) return current;
  const next = structuredClone(current) as T;
  next.metadata.labels = { ...next.metadata.labels, ...want.metadata.labels };
  next.metadata.annotations = { ...next.metadata.annotations, ...want.metadata.annotations };
  // Over what the server keeps (a Service's clusterIP, defaults), what the store asks for.
  if (want.spec) next.spec = { ...current.spec, ...want.spec };
  if (want.data) next.data = want.data;
  const updated = await client.update(next);
  ctx.event(kvs, 'Normal', 'Updated', `Updated ${type.kind} ${want.metadata.name}`);
  return updated;
}

function statusOf(kvs: KeyValueStore, sts: StatefulSet, now: Date): KeyValueStoreStatus {
  const replicas = kvs.spec.replicas ?? 1;
  const readyReplicas = sts.status?.readyReplicas ?? 0;
  const current = (sts.status?.observedGeneration ?? 0) >= (sts.metadata.generation ?? 0) && sts.spec?.replicas === replicas;
  const ready = current && readyReplicas === replicas && (sts.status?.replicas ?? 0) === replicas;
  const conditions = setCondition(kvs.status?.conditions, {
    type: 'Ready',
    status: ready ? 'True' : 'False',
    reason: ready ? 'AllReplicasReady' : 'ReplicasNotReady',
    message: `${readyReplicas}/${replicas} replicas ready`,
    observedGeneration: kvs.metadata.generation,
  }, now);
  return { observedGeneration: kvs.metadata.generation, replicas: sts.status?.replicas ?? 0, readyReplicas, conditions };
}

export const keyValueStoreReconciler: Reconciler<KeyValueStore> = {
  name: 'keyvalue-operator',
  for: keyValueStores,
  owns: [resources.statefulsets, resources.services, resources.configmaps],
  finalizer: FINALIZER,

  async reconcile(kvs, ctx) {
    await ensure(ctx, kvs, resources.configmaps, desiredConfigMap(kvs));
    await ensure(ctx, kvs, resources.services, desiredHeadlessService(kvs));
    await ensure(ctx, kvs, resources.services, desiredClientService(kvs));
    const sts = await ensure(ctx, kvs, resources.statefulsets, desiredStatefulSet(kvs));
    const status = statusOf(kvs, sts, ctx.now());
    if (isDeepStrictEqual(status, kvs.status)) return;
    const wasReady = kvs.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    await ctx.client.patch(kvs.metadata.namespace, kvs.metadata.name!, 'merge', { status }, 'status');
    const nowReady = status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (nowReady && !wasReady) ctx.event(kvs, 'Normal', 'Ready', `${status.readyReplicas} replicas ready`);
  },

  async finalize(kvs, ctx) {
    const n = names(kvs);
    const ns = kvs.metadata.namespace;
    const children: [ResourceType<Child>, string][] = [
      [resources.statefulsets as ResourceType<Child>, n.statefulSet], [resources.services as ResourceType<Child>, n.client],
      [resources.services as ResourceType<Child>, n.headless], [resources.configmaps as ResourceType<Child>, n.configMap],
    ];
    for (const [type, name] of children) {
      const child = ctx.lister(type).get(ns, name);
      if (!child || !isControlledBy(child, kvs)) continue;
      try {
        await ctx.clients.resource(type).delete(ns, name, { propagationPolicy: 'Background', preconditions: { uid: child.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    ctx.event(kvs, 'Normal', 'Deleted', `Deleted the children of KeyValueStore ${kvs.metadata.name}`);
  },
};
