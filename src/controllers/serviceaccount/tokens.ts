// The tokens controller, after kube-controller-manager's serviceaccount-token controller: a
// Secret of type kubernetes.io/service-account-token naming a ServiceAccount gets a signed
// legacy token, the cluster CA and its namespace in its data, and the ServiceAccount's uid
// in an annotation; a Secret whose ServiceAccount is gone (or was recreated) is deleted.
// Without --service-account-private-key-file the controller does nothing.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import {
  legacyTokenClaims, serviceAccountNameAnnotation, serviceAccountTokenSecretType, serviceAccountUIDAnnotation,
} from '../../api/legacy-serviceaccount-token.js';
import type { Secret, ServiceAccount } from '../../api/kinds.js';
import { isConflict, isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { signJWT } from '../../util/jwt.js';
import { QueueController, type ControllerContext, type ReconcileResult } from '../framework.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

export class TokensController extends QueueController {
  private secrets: SharedInformer<Secret>;
  private serviceAccounts: SharedInformer<ServiceAccount>;
  private key?: KeyObject;

  constructor(ctx: ControllerContext) {
    super('serviceaccount-token', ctx);
    if (ctx.config.serviceAccountPrivateKeyPem) this.key = createPrivateKey(ctx.config.serviceAccountPrivateKeyPem);
    this.secrets = ctx.informers.informerFor(resources.secrets, { fieldSelector: `type=${serviceAccountTokenSecretType}` });
    this.serviceAccounts = ctx.informers.informerFor(resources.serviceaccounts);
    if (!this.key) return;
    this.secrets.addEventHandler({ onAdd: (s) => this.enqueue(s), onUpdate: (_o, s) => this.enqueue(s) });
    // A ServiceAccount that goes (or comes) changes what its token Secrets should be.
    const bySA = (sa: ServiceAccount) => {
      for (const s of this.secrets.lister.list(sa.metadata.namespace)) {
        if (s.metadata.annotations?.[serviceAccountNameAnnotation] === sa.metadata.name) this.enqueue(s);
      }
    };
    this.serviceAccounts.addEventHandler({ onAdd: bySA, onDelete: bySA });
  }

  override async run(workers: number): Promise<void> {
    if (!this.key) {
      this.log.info('no --service-account-private-key-file: legacy ServiceAccount token Secrets are not filled in');
    }
    return super.run(workers);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const [ns, name] = key.split('/');
    const secret = this.secrets.lister.get(ns, name);
    if (!this.key || !secret || secret.type !== serviceAccountTokenSecretType || secret.metadata.deletionTimestamp) return;
    const saName = secret.metadata.annotations?.[serviceAccountNameAnnotation];
    if (!saName) return;
    const wantUID = secret.metadata.annotations?.[serviceAccountUIDAnnotation];
    // The cache may not have seen a ServiceAccount created a moment ago: ask before deleting.
    let sa: ServiceAccount | undefined = this.serviceAccounts.lister.get(ns, saName);
    if (!sa) {
      try {
        sa = await this.ctx.clients.resource(resources.serviceaccounts).get(ns, saName);
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    const api = this.ctx.clients.resource(resources.secrets);
    if (!sa || (wantUID && wantUID !== sa.metadata.uid)) {
      this.log.info('deleting token secret of a ServiceAccount that is gone', { secret: key, serviceAccount: saName });
      try {
        await api.delete(ns, name, { preconditions: { uid: secret.metadata.uid as string } });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
      return;
    }
    const data = secret.data ?? {};
    const caPem = this.ctx.config.rootCAPem;
    const complete = data.token && data.namespace === b64(ns) && (!caPem || data['ca.crt'] === b64(caPem)) && wantUID === sa.metadata.uid;
    if (complete) return;
    const token = data.token ? Buffer.from(data.token, 'base64').toString('utf8') : signJWT(legacyTokenClaims(ns, saName, sa.metadata.uid as string, name), this.key);
    const next: Secret = structuredClone(secret);
    next.metadata.annotations = { ...next.metadata.annotations, [serviceAccountUIDAnnotation]: sa.metadata.uid as string };
    next.data = { ...data, token: b64(token), namespace: b64(ns), ...(caPem ? { 'ca.crt': b64(caPem) } : {}) };
    try {
      await api.update(next);
    } catch (e) {
      // Changed meanwhile: the update event brings it back with the new version.
      if (!isConflict(e) && !isNotFound(e)) throw e;
    }
  }
}
