// The disruption controller, after upstream's pkg/controller/disruption: keeps every
// PodDisruptionBudget's status — expected and healthy pods, disruptions allowed, the
// DisruptionAllowed condition, the evictions still counted as going — as its pods and their
// controllers change, and rechecks when an allowed eviction's two minutes run out.
import { isDeepStrictEqual } from 'node:util';
import { resources, isConflict, type EventRecorder, type SharedInformer } from '../../client/index.js';
import type { ObjectBase } from '../../api/object.js';
import type { Pod, PodDisruptionBudget } from '../../api/kinds.js';
import { budgetCovers, DisruptionAllowed, setStatusCondition, SyncFailed } from '../../api/policy/disruption.js';
import { fromLabelSelector, type LabelSelector } from '../../api/labels.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import { controllerRef } from '../replicaset/index.js';
import { budgetStatus, countHealthy, disruptedPods, expectedPods, type ScaleOf } from './budget.js';

const appsGroup = (apiVersion: string) => apiVersion.split('/')[0] === 'apps' || apiVersion.split('/')[0] === 'extensions';

export class DisruptionController extends QueueController {
  private readonly pdbs: SharedInformer<PodDisruptionBudget>;
  private readonly pods: SharedInformer<Pod>;
  private readonly others: SharedInformer<ObjectBase>[];
  private readonly recorder: EventRecorder;

  constructor(ctx: ControllerContext) {
    super('disruption', ctx);
    this.recorder = ctx.recorder('controllermanager');
    this.pdbs = ctx.informers.informerFor(resources.poddisruptionbudgets);
    this.pdbs.addEventHandler({ onAdd: (b) => this.enqueue(b), onUpdate: (_o, b) => this.enqueue(b), onDelete: (b) => this.enqueue(b) });
    this.pods = ctx.informers.informerFor(resources.pods);
    const touchPod = (p: Pod) => { for (const b of this.pdbs.lister.list(p.metadata.namespace)) if (budgetCovers(b, p)) this.enqueue(b); };
    this.pods.addEventHandler({ onAdd: touchPod, onUpdate: (o, p) => { touchPod(o); touchPod(p); }, onDelete: touchPod });
    // A controller's scale decides the expected count: every budget of its namespace is recounted.
    const workloads = [ctx.informers.informerFor(resources.replicasets), ctx.informers.informerFor(resources.deployments), ctx.informers.informerFor(resources.statefulsets)];
    this.others = workloads as unknown as SharedInformer<ObjectBase>[];
    const touchNamespace = (o: ObjectBase) => { for (const b of this.pdbs.lister.list(o.metadata?.namespace)) this.enqueue(b); };
    for (const inf of this.others) inf.addEventHandler({ onAdd: touchNamespace, onUpdate: (_o, n) => touchNamespace(n), onDelete: touchNamespace });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (![this.pdbs, this.pods, ...this.others].every((i) => i.hasSynced())) return { requeueAfterMs: 100 };
    const pdb = this.pdbs.lister.byKey(key);
    if (!pdb) return;
    const now = this.ctx.clock.now();
    try {
      const pods = this.podsOf(pdb);
      if (!pods.length) this.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
      const expected = expectedPods(pdb, pods, this.scaleOf);
      if (expected.unmanaged.length) {
        this.recorder.event(pdb, 'Warning', 'UnmanagedPods', `Pods selected by this PodDisruptionBudget (selector: ${JSON.stringify(pdb.spec?.selector ?? null)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`);
      }
      const going = disruptedPods(pods, pdb, now);
      for (const pod of going.notDeleted) {
        this.log.info('pod was expected to be deleted but it was not', { pod: pod.metadata.name, at: pdb.status?.disruptedPods?.[pod.metadata.name!] });
        this.recorder.event(pod, 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata.namespace}/${pdb.metadata.name} to be deleted but it wasn't`);
      }
      const status = budgetStatus(pdb, {
        currentHealthy: countHealthy(pods, going.disrupted, now), desiredHealthy: expected.desiredHealthy,
        expectedPods: expected.expectedCount, disruptedPods: going.disrupted,
      }, new Date(now));
      await this.writeStatus(pdb, status);
      return going.recheckAt !== undefined ? { requeueAfterMs: Math.max(0, going.recheckAt - now) } : undefined;
    } catch (e) {
      if (isConflict(e)) throw e;
      this.log.warn('cannot compute the budget; it allows no disruptions', { error: (e as Error).message });
      return this.failSafe(pdb, e as Error, new Date(now));
    }
  }

  /** Upstream's failSafe: no disruptions until the budget can be computed again. */
  private async failSafe(pdb: PodDisruptionBudget, err: Error, now: Date): Promise<ReconcileResult> {
    const old = pdb.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    const conditions = setStatusCondition((old.conditions ?? []) as Parameters<typeof setStatusCondition>[0], {
      type: DisruptionAllowed, status: 'False', reason: SyncFailed, message: err.message,
      ...(old.observedGeneration !== undefined ? { observedGeneration: old.observedGeneration } : {}),
    }, now);
    await this.writeStatus(pdb, { ...old, disruptionsAllowed: 0, conditions });
    // The pods or controllers it lacked may appear without an event for the budget.
    return { requeueAfterMs: 30_000 };
  }

  private async writeStatus(pdb: PodDisruptionBudget, status: NonNullable<PodDisruptionBudget['status']>): Promise<void> {
    if (isDeepStrictEqual(status, pdb.status)) return;
    await this.ctx.clients.resource(resources.poddisruptionbudgets).updateStatus({ ...pdb, status });
  }

  private podsOf(pdb: PodDisruptionBudget): Pod[] {
    // A selector that does not parse is refused on write; one stored before is a sync failure.
    fromLabelSelector(pdb.spec?.selector as LabelSelector | undefined);
    return this.pods.lister.list(pdb.metadata.namespace).filter((p) => budgetCovers(pdb, p));
  }

  /** Upstream's finders: Deployment (through its ReplicaSet), ReplicaSet, StatefulSet. ReplicationControllers are not served. */
  private readonly scaleOf: ScaleOf = (ref, ns) => {
    if (!appsGroup(ref.apiVersion)) return undefined;
    if (ref.kind === 'ReplicaSet') {
      const rs = this.ctx.informers.informerFor(resources.replicasets).lister.get(ns, ref.name);
      if (!rs || rs.metadata.uid !== ref.uid) return undefined;
      const owner = controllerRef(rs);
      if (owner?.kind === 'Deployment' && appsGroup(owner.apiVersion)) {
        const d = this.ctx.informers.informerFor(resources.deployments).lister.get(ns, owner.name);
        return d && d.metadata.uid === owner.uid ? { uid: d.metadata.uid!, scale: d.spec?.replicas ?? 1 } : undefined;
      }
      return { uid: rs.metadata.uid!, scale: rs.spec?.replicas ?? 1 };
    }
    if (ref.kind === 'StatefulSet') {
      const ss = this.ctx.informers.informerFor(resources.statefulsets).lister.get(ns, ref.name);
      return ss && ss.metadata.uid === ref.uid ? { uid: ss.metadata.uid!, scale: ss.spec?.replicas ?? 1 } : undefined;
    }
    return undefined;
  };
}
