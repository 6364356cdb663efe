// Informers → Zone. Event handlers only mark keys dirty; one flush per turn of the event
// loop recomputes each dirty Service or Pod from the listers (level-based: the result does
// not depend on the order events came in, and a missed event is healed by the next one or
// by the informer's resync).
import type { ObjectBase } from '../api/object.js';
import { resources, type SharedInformer, type SharedInformerFactory } from '../client/index.js';
import { podRecords, serviceRecords, type RecordConfig } from './records.js';
import type { Zone } from './zone.js';
import type { EndpointSlice, Pod, Service } from '../api/kinds.js';

const serviceNameLabel = 'kubernetes.io/service-name';

export interface SourcesOptions extends RecordConfig {
  /** Pod records (`a-b-c-d.ns.pod.<zone>`, pod PTRs) only for pods that exist. */
  podRecords: boolean;
}

export class ZoneSources {
  private services: SharedInformer<Service>;
  private slices: SharedInformer<EndpointSlice>;
  private pods: SharedInformer<Pod>;
  private dirtyServices = new Set<string>();
  private dirtyPods = new Set<string>();
  /** pod key → Services whose records read that pod (endpoint targetRefs). */
  private podUsers = new Map<string, Set<string>>();
  private serviceUses = new Map<string, string[]>();
  private scheduled = false;

  constructor(factory: SharedInformerFactory, private zone: Zone, private opts: SourcesOptions) {
    this.services = factory.informerFor(resources.services);
    this.slices = factory.informerFor(resources.endpointslices);
    this.pods = factory.informerFor(resources.pods);
    this.slices.addIndexer('service', (o) => {
      const svc = o.metadata.labels?.[serviceNameLabel];
      return svc ? [`${o.metadata.namespace}/${svc}`] : [];
    });
    const key = (o: ObjectBase) => `${o.metadata.namespace}/${o.metadata.name}`;
    const sliceKey = (o: ObjectBase) => {
      const svc = o.metadata.labels?.[serviceNameLabel];
      return svc ? `${o.metadata.namespace}/${svc}` : undefined;
    };
    this.services.addEventHandler({
      onAdd: (o) => this.markService(key(o)),
      onUpdate: (_, o) => this.markService(key(o)),
      onDelete: (o) => this.markService(key(o)),
    });
    this.slices.addEventHandler({
      onAdd: (o) => this.markService(sliceKey(o)),
      onUpdate: (old, o) => { this.markService(sliceKey(old)); this.markService(sliceKey(o)); },
      onDelete: (o) => this.markService(sliceKey(o)),
    });
    this.pods.addEventHandler({
      onAdd: (o) => this.markPod(key(o)),
      onUpdate: (_, o) => this.markPod(key(o)),
      onDelete: (o) => this.markPod(key(o)),
    });
  }

  hasSynced(): boolean {
    return this.services.hasSynced() && this.slices.hasSynced() && this.pods.hasSynced();
  }

  /** Applies everything marked so far; tests call it to skip the wait for the next turn. */
  flush(): void {
    this.scheduled = false;
    const pods = [...this.dirtyPods];
    this.dirtyPods.clear();
    for (const p of pods) {
      for (const svc of this.podUsers.get(p) ?? []) this.dirtyServices.add(svc);
      this.syncPod(p);
    }
    const services = [...this.dirtyServices];
    this.dirtyServices.clear();
    for (const s of services) this.syncService(s);
  }

  private markService(key: string | undefined): void {
    if (!key) return;
    this.dirtyServices.add(key);
    this.schedule();
  }

  private markPod(key: string): void {
    this.dirtyPods.add(key);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private syncService(key: string): void {
    const [ns, name] = key.split('/');
    const svc = this.services.lister.get(ns, name);
    const slices = svc ? this.slices.lister.byIndex('service', key) : [];
    const built = svc
      ? serviceRecords(this.opts, svc, slices, (pns, pname) => this.pods.lister.get(pns, pname))
      : { records: [], pods: [] };
    for (const p of this.serviceUses.get(key) ?? []) this.podUsers.get(p)?.delete(key);
    if (built.pods.length) this.serviceUses.set(key, built.pods);
    else this.serviceUses.delete(key);
    for (const p of built.pods) {
      let users = this.podUsers.get(p);
      if (!users) this.podUsers.set(p, (users = new Set()));
      users.add(key);
    }
    this.zone.set(`service/${key}`, built.records);
  }

  private syncPod(key: string): void {
    const [ns, name] = key.split('/');
    const pod = this.pods.lister.get(ns, name);
    if (!pod) {
      this.podUsers.delete(key);
    } else if (this.podUsers.get(key)?.size === 0) this.podUsers.delete(key);
    const live = pod && !pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
    this.zone.set(`pod/${key}`, live && this.opts.podRecords ? podRecords(this.opts, pod) : [], true);
  }
}
