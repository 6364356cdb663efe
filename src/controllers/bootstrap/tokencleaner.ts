// The token cleaner, after kube-controller-manager's tokencleaner: a bootstrap token Secret
// is deleted when its expiration passes. Each Secret is looked at when it is added or changed
// and then again at its expiry, so nothing polls the whole set.
import { bootstrapTokenExpiry, bootstrapTokenNamespace, bootstrapTokenSecretType } from '../../api/bootstrap-token.js';
import type { Secret } from '../../api/kinds.js';
import { isConflict, isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';

/** Timers longer than this overflow (Node fires them at once); a later expiry is looked at again after it. */
const maxWaitMs = 24 * 60 * 60 * 1000;

export class TokenCleaner extends QueueController {
  private secrets: SharedInformer<Secret>;

  constructor(ctx: ControllerContext) {
    super('tokencleaner', ctx);
    this.secrets = ctx.informers.informerFor(resources.secrets, { fieldSelector: `type=${bootstrapTokenSecretType}` });
    const add = (s: Secret) => { if (s.metadata.namespace === bootstrapTokenNamespace) this.enqueue(s); };
    this.secrets.addEventHandler({ onAdd: add, onUpdate: (_old, s) => add(s) });
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const [ns, name] = key.split('/');
    const secret = this.secrets.lister.get(ns, name);
    if (!secret || secret.type !== bootstrapTokenSecretType || secret.metadata.deletionTimestamp) return;
    const left = bootstrapTokenExpiry(secret as Parameters<typeof bootstrapTokenExpiry>[0]) - this.ctx.clock.now();
    if (left === Infinity) return;
    if (left >= 0) return { requeueAfterMs: Math.min(left + 1, maxWaitMs) };
    this.log.info('deleting expired bootstrap token secret', { secret: key });
    try {
      // The uid precondition keeps a Secret recreated under the same name from being deleted.
      await this.ctx.clients.resource(resources.secrets).delete(ns, name, { preconditions: { uid: secret.metadata.uid as string } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}
