// The custom resources the collector monitors, kept in step with the CustomResourceDefinitions:
// an Established CRD gets an informer on its storage version's resource (as upstream's
// collector re-discovers deletable, listable resources); a CRD that goes away or stops being
// Established has its informer stopped. The informers are the collector's own, not the shared
// factory's, because the factory cannot stop one resource.
import type { KubeObject } from '../../api/object.js';
import { SharedInformer, type ResourceType } from '../../client/index.js';
import type { ControllerContext } from '../framework.js';

export const customResourceDefinitions: ResourceType = {
  group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false,
};

export interface CustomResourceSink {
  /** `type` is now watched through `informer` (handlers are added before it starts). */
  watching(type: ResourceType, informer: SharedInformer<KubeObject>): void;
  /** `type` is no longer watched; `last` is what its informer last held. */
  stopped(type: ResourceType, last: KubeObject[]): void;
}

interface CRDSpec {
  group: string;
  scope: string;
  names: { plural: string; kind: string };
  versions?: { name: string; served: boolean; storage: boolean }[];
}

/** The storage version's resource of an Established CRD, or undefined when it is not served. */
export function servedResource(crd: KubeObject): ResourceType | undefined {
  const established = ((crd.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [])
    .some((c) => c.type === 'Established' && c.status === 'True');
  if (!established) return undefined;
  const spec = crd.spec as CRDSpec;
  const version = spec.versions?.find((v) => v.storage && v.served) ?? spec.versions?.find((v) => v.served);
  if (!version) return undefined;
  return { group: spec.group, version: version.name, resource: spec.names.plural, kind: spec.names.kind, namespaced: spec.scope === 'Namespaced' };
}

const sameType = (a: ResourceType, b: ResourceType) =>
  a.group === b.group && a.version === b.version && a.resource === b.resource && a.kind === b.kind && a.namespaced === b.namespaced;

export class CustomResourceMonitor {
  private readonly watched = new Map<string, { type: ResourceType; informer: SharedInformer<KubeObject> }>();
  private stopping = false;

  constructor(private readonly ctx: ControllerContext, private readonly sink: CustomResourceSink) {
    ctx.informers.informerFor(customResourceDefinitions).addEventHandler({
      onAdd: (crd) => this.sync(crd),
      onUpdate: (_old, crd) => this.sync(crd),
      onDelete: (crd) => void this.unwatch(crd.metadata.uid as string),
    }, 'garbagecollector-crds');
  }

  private sync(crd: KubeObject): void {
    if (this.stopping) return;
    const uid = crd.metadata.uid as string;
    const type = servedResource(crd);
    const cur = this.watched.get(uid);
    if (cur && type && sameType(cur.type, type)) return;
    if (cur) void this.unwatch(uid);
    if (!type) return;
    const informer = new SharedInformer<KubeObject>(this.ctx.clients.resource(type), { clock: this.ctx.clock, log: this.ctx.log, registry: this.ctx.metrics });
    this.watched.set(uid, { type, informer });
    this.sink.watching(type, informer);
    informer.start();
    this.ctx.log.info('garbage collector monitors a custom resource', { group: type.group, version: type.version, resource: type.resource });
  }

  private async unwatch(uid: string): Promise<void> {
    const cur = this.watched.get(uid);
    if (!cur) return;
    this.watched.delete(uid);
    const last = cur.informer.lister.list();
    await cur.informer.stop();
    if (!this.stopping) this.sink.stopped(cur.type, last);
  }

  /** The resources watched now (for tests and logs). */
  resources(): ResourceType[] {
    return [...this.watched.values()].map((w) => w.type);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.watched.keys()].map((uid) => this.unwatch(uid)));
  }
}
