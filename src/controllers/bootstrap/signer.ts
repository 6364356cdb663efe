// The bootstrap signer, after kube-controller-manager's bootstrapsigner: it keeps one
// `jws-kubeconfig-<token-id>` entry in kube-public/cluster-info for every bootstrap token
// Secret marked usage-bootstrap-signing that has not expired, and removes the others. The
// ConfigMap is read by name (the controller may not list ConfigMaps); token Secrets drive it,
// and it looks again every minute for changes to the ConfigMap itself.
import { bootstrapTokenExpiry, bootstrapTokenKeys, bootstrapTokenNamespace, bootstrapTokenSecretType, secretValue } from '../../api/bootstrap-token.js';
import { clusterInfo, detachedSignature } from '../../api/cluster-info.js';
import type { Secret } from '../../api/kinds.js';
import { isConflict, isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';

const KEY = `${clusterInfo.namespace}/${clusterInfo.name}`;
const RESYNC_MS = 60_000;

export class BootstrapSigner extends QueueController {
  private secrets: SharedInformer<Secret>;

  constructor(ctx: ControllerContext) {
    super('bootstrapsigner', ctx);
    this.secrets = ctx.informers.informerFor(resources.secrets, { fieldSelector: `type=${bootstrapTokenSecretType}` });
    const changed = () => this.enqueue(KEY);
    this.secrets.addEventHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
    this.enqueue(KEY);
  }

  /** The signatures the ConfigMap should carry for `content`, and when the next token expires. */
  private signatures(content: string): { want: Record<string, string>; nextExpiry: number } {
    const want: Record<string, string> = {};
    let nextExpiry = Infinity;
    const now = this.ctx.clock.now();
    for (const s of this.secrets.lister.list(bootstrapTokenNamespace)) {
      if (s.type !== bootstrapTokenSecretType || s.metadata.deletionTimestamp) continue;
      const like = s as Parameters<typeof secretValue>[0];
      if (secretValue(like, bootstrapTokenKeys.usageSigning) !== 'true') continue;
      const expiry = bootstrapTokenExpiry(like);
      if (expiry <= now) continue;
      nextExpiry = Math.min(nextExpiry, expiry);
      const id = secretValue(like, bootstrapTokenKeys.id), secret = secretValue(like, bootstrapTokenKeys.secret);
      if (!id || !secret) continue;
      want[`${clusterInfo.jwsKeyPrefix}${id}`] = detachedSignature(content, id, secret);
    }
    return { want, nextExpiry };
  }

  async reconcile(): Promise<ReconcileResult | void> {
    const api = this.ctx.clients.resource(resources.configmaps);
    let cm;
    try {
      cm = await api.get(clusterInfo.namespace, clusterInfo.name);
    } catch (e) {
      if (isNotFound(e)) return { requeueAfterMs: RESYNC_MS };
      throw e;
    }
    const content = cm.data?.[clusterInfo.kubeconfigKey];
    if (content === undefined) return { requeueAfterMs: RESYNC_MS };
    const { want, nextExpiry } = this.signatures(content);
    const data: Record<string, string> = {};
    for (const [k, v] of Object.entries(cm.data ?? {})) if (!k.startsWith(clusterInfo.jwsKeyPrefix)) data[k] = v;
    Object.assign(data, want);
    const same = JSON.stringify(Object.entries(data).sort()) === JSON.stringify(Object.entries(cm.data ?? {}).sort());
    if (!same) {
      this.log.info('updating cluster-info signatures', { tokens: Object.keys(want).map((k) => k.slice(clusterInfo.jwsKeyPrefix.length)) });
      try {
        await api.update({ ...cm, data });
      } catch (e) {
        if (!isConflict(e)) throw e;
        return { requeueAfterMs: 0 };
      }
    }
    const untilExpiry = nextExpiry - this.ctx.clock.now() + 1;
    return { requeueAfterMs: Math.max(0, Math.min(RESYNC_MS, untilExpiry)) };
  }
}
