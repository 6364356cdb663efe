// The root CA publisher: every namespace has a ConfigMap `kube-root-ca.crt` whose `ca.crt`
// is the cluster CA, so pods can verify the API server (the kube-api-access volume projects
// it). Deleted → recreated; edited → restored; other ConfigMaps are not its business.
import { APIError, isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { QueueController, type ControllerContext } from '../framework.js';
import type { ConfigMap, Namespace } from '../../api/kinds.js';

export const rootCAConfigMapName = 'kube-root-ca.crt';
export const descriptionAnnotation = 'kubernetes.io/description';
export const description = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. '
  + 'No other usage is guaranteed across distributions of Kubernetes clusters.';

export class RootCACertPublisher extends QueueController {
  private namespaces: SharedInformer<Namespace>;
  private configMaps: SharedInformer<ConfigMap>;

  constructor(ctx: ControllerContext, private rootCA: string) {
    super('root-ca-cert-publisher', ctx);
    this.namespaces = ctx.informers.informerFor(resources.namespaces);
    this.configMaps = ctx.informers.informerFor(resources.configmaps);
    this.namespaces.addEventHandler({
      onAdd: (ns) => this.enqueue(ns.metadata.name as string),
      onUpdate: (_o, ns) => { if ((ns.status?.phase ?? 'Active') === 'Active') this.enqueue(ns.metadata.name as string); },
    });
    const ours = (cm: ConfigMap) => { if (cm.metadata.name === rootCAConfigMapName) this.enqueue(cm.metadata.namespace as string); };
    this.configMaps.addEventHandler({ onUpdate: (_o, cm) => ours(cm), onDelete: ours });
  }

  async reconcile(namespace: string): Promise<void> {
    const api = this.ctx.clients.resource(resources.configmaps);
    const cm = this.configMaps.lister.get(namespace, rootCAConfigMapName);
    const data = { 'ca.crt': this.rootCA };
    if (!cm) {
      try {
        await api.create(namespace, {
          apiVersion: 'v1', kind: 'ConfigMap',
          metadata: { name: rootCAConfigMapName, namespace, annotations: { [descriptionAnnotation]: description } },
          data,
        });
      } catch (e) {
        // A namespace that is gone or going takes no new content: nothing to retry.
        if (isNotFound(e) || terminating(e)) return;
        throw e;
      }
      return;
    }
    const same = Object.keys(cm.data ?? {}).length === 1 && cm.data?.['ca.crt'] === this.rootCA && !cm.binaryData;
    if (same && cm.metadata.annotations?.[descriptionAnnotation]) return;
    await api.update({
      ...cm,
      metadata: { ...cm.metadata, annotations: { ...cm.metadata.annotations, [descriptionAnnotation]: description } },
      data,
      binaryData: undefined,
    });
  }
}

function terminating(e: unknown): boolean {
  return e instanceof APIError && (e.status?.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}
