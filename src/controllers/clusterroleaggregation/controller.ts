// The ClusterRole aggregation controller, after upstream's clusterroleaggregation: a
// ClusterRole with `aggregationRule.clusterRoleSelectors` gets, as its rules, the union of the
// rules of every other ClusterRole its selectors match, kept up to date as those change.
import { resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';
import type { ClusterRole } from '../../api/kinds.js';
import { fromLabelSelector, matches, type LabelSelector } from '../../api/labels.js';
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

export class ClusterRoleAggregationController extends QueueController {
  private roles: SharedInformer<ClusterRole>;

  constructor(ctx: ControllerContext) {
    super('clusterrole-aggregation', ctx);
    this.roles = ctx.informers.informerFor(resources.clusterroles);
    // Any change may change what an aggregated role selects: requeue every aggregated role.
    const all = () => { for (const r of this.roles.lister.list()) if (r.aggregationRule) this.enqueue(r.metadata.name as string); };
    this.roles.addEventHandler({ onAdd: all, onUpdate: all, onDelete: all });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const role = this.roles.lister.get(undefined, key);
    if (!role?.aggregationRule) return;
    const selectors = (role.aggregationRule.clusterRoleSelectors ?? []).map((s) => fromLabelSelector(s as LabelSelector));
    const sources = this.roles.lister.list()
      .filter((r) => r.metadata.name !== key && selectors.some((s) => s !== null && matches(s, r.metadata.labels)))
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    const rules: PolicyRule[] = [];
    const seen = new Set<string>();
    for (const r of sources) {
      for (const rule of r.rules ?? []) {
        const text = JSON.stringify(rule);
        if (!seen.has(text)) { seen.add(text); rules.push(rule); }
      }
    }
    if (JSON.stringify(role.rules ?? []) === JSON.stringify(rules)) return;
    await this.ctx.clients.resource(resources.clusterroles).update({ ...role, apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', rules });
  }
}
