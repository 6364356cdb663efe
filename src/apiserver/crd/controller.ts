// The API server's own CRD controllers (upstream's naming, establishing, finalizer, discovery
// and OpenAPI controllers, in one queue): for each CustomResourceDefinition, decide its
// accepted names, serve its resource (registry, discovery, OpenAPI) and mark it Established;
// on deletion, delete every custom resource, then drop the cleanup finalizer; once the CRD
// is gone, stop serving. Runs inside the API server on its registries, as
// apiextensions-apiserver runs inside kube-apiserver.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/object.js';
import type { WatchCache } from '../../storage/watch-cache.js';
import type { Logger } from '../../log/index.js';
import { fallbacks } from '../../log/fallback.js';
import { setDynamicType } from '../../api/schema.js';
import { toDSL } from '../../api/apiextensions/to-dsl.js';
import type { CRDSpec } from '../../api/apiextensions/validation.js';
import { GenericRegistry, type Registries } from '../registry/index.js';
import { resourceInfos, type ResourceInfo } from '../discovery.js';
import { StatusError } from '../errors.js';
import type { RequestContext } from '../registry/types.js';
import { CLEANUP_FINALIZER, conditionTrue, setCondition } from '../registry/apiextensions/crds.js';
import { crSchemaName, customResourceDef, type ServingState } from './resource-def.js';
import { reader } from '../admission/webhook/index.js';
import { decideNames } from './names.js';

const fallback = fallbacks('apiserver');
const PREFIX = '/registry/apiextensions.k8s.io/customresourcedefinitions/';
const RETRY_MS = 500;

interface Installed {
  group: string;
  resource: string;
  schemaNames: string[];
  state: ServingState;
  /** What the serving was built from; a CRD update that changes none of it reinstalls nothing. */
  source: string;
}

export class CRDController {
  private crds = new Map<string, KubeObject>();
  private installed = new Map<string, Installed>();
  private queue = new Set<string>();
  private draining = false;
  private stopFeed?: () => void;
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private registries: Registries, private served: ResourceInfo[], private cache: WatchCache, private log: Logger) {}

  private get crdRegistry(): GenericRegistry {
    return this.registries.get('apiextensions.k8s.io', 'customresourcedefinitions')!;
  }

  /** Loads the current CRDs from the watch cache and follows changes. */
  start(): void {
    const { items, revision } = this.cache.snapshot(PREFIX);
    for (const ev of items) this.observe(ev.key, ev.value, ev.revision);
    this.stopFeed = this.cache.subscribe(PREFIX, revision, (ev) => {
      if (ev.revision === -1) { this.stopFeed?.(); queueMicrotask(() => { if (!this.stopped) this.start(); }); return; }
      if (ev.type === 'DELETE') this.forget(ev.key.slice(PREFIX.length));
      else this.observe(ev.key, ev.value, ev.revision);
    });
    // The whole set again: a CRD deleted while the feed was down is uninstalled.
    for (const name of this.installed.keys()) if (!this.crds.has(name)) this.enqueue(name);
  }

  stop(): void {
    this.stopped = true;
    this.stopFeed?.();
    for (const t of this.timers) clearTimeout(t);
  }

  /** Resolves when the queue is empty (tests and benchmarks wait on it). */
  idle(): Promise<void> {
    if (!this.draining && !this.queue.size) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private observe(key: string, value: Buffer, revision: number): void {
    const name = key.slice(PREFIX.length);
    try {
      this.crds.set(name, this.crdRegistry.decode(value, revision, key));
    } catch (error) {
      fallback('crd-undecodable', { key, error });
      return;
    }
    this.enqueue(name);
    this.wakeWaiting(name, this.crds.get(name)!);
  }

  private forget(name: string): void {
    const crd = this.crds.get(name);
    this.crds.delete(name);
    this.enqueue(name);
    if (crd) this.wakeWaiting(name, crd);
  }

  /** A CRD whose accepted names changed (or that went) may free names others of its group wait for. */
  private wakeWaiting(name: string, changed: KubeObject): void {
    const group = (changed.spec as unknown as CRDSpec | undefined)?.group;
    for (const [other, crd] of this.crds) {
      if (other !== name && (crd.spec as unknown as CRDSpec | undefined)?.group === group && !conditionTrue(crd, 'NamesAccepted')) this.enqueue(other);
    }
  }

  private enqueue(name: string): void {
    this.queue.add(name);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.queue.size && !this.stopped) {
      const name = this.queue.values().next().value as string;
      this.queue.delete(name);
      try {
        await this.reconcile(name);
      } catch (error) {
        if (!(error instanceof StatusError && error.code === 409)) this.log.error('crd reconcile failed', { crd: name, error: String(error) });
        this.retry(name);
      }
    }
    this.draining = false;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private retry(name: string): void {
    const t = setTimeout(() => { this.timers.delete(t); this.enqueue(name); }, RETRY_MS);
    this.timers.add(t);
  }

  private ctx(): RequestContext {
    return { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, now: new Date() };
  }

  private async reconcile(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (!crd) return this.uninstall(name);
    if (crd.metadata.deletionTimestamp) return this.finalize(crd);
    const others = [...this.crds.values()];
    const { accepted, namesAccepted } = decideNames(crd, others);
    const next = structuredClone(crd);
    const status = (next.status ??= {}) as Record<string, unknown>;
    status.acceptedNames = accepted;
    const now = new Date();
    setCondition(next, namesAccepted, now);
    if (namesAccepted.status === 'True' || conditionTrue(crd, 'Established')) {
      // Serving first: once a client sees Established, requests to the resource succeed.
      this.install(next);
      setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
    } else {
      setCondition(next, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    }
    if (isDeepStrictEqual(next.status, crd.status)) return;
    await this.crdRegistry.update(undefined, name, (current) => {
      if (current.metadata.uid !== crd.metadata.uid) throw new StatusError(409, 'Conflict', 'the CustomResourceDefinition was replaced');
      return { ...current, status: next.status };
    }, this.ctx(), 'status');
  }

  /** Serves (or re-serves, after a change) the CRD's resource. */
  private install(crd: KubeObject): void {
    const name = crd.metadata.name as string;
    const spec = crd.spec as unknown as CRDSpec;
    const source = JSON.stringify([crd.metadata.uid, spec, (crd.status as Record<string, unknown>).acceptedNames]);
    if (this.installed.get(name)?.source === source) return;
    this.uninstall(name);
    // A built-in resource of the same group and name wins, as kube-apiserver routes it first.
    const names = (crd.status as { acceptedNames?: { plural?: string } }).acceptedNames;
    const existing = this.registries.get(spec.group, names?.plural ?? spec.names.plural);
    if (existing && !existing.def.custom) {
      this.log.warn('custom resource shadowed by a built-in resource', { crd: name });
      return;
    }
    const state: ServingState = { terminating: false };
    const def = customResourceDef(crd, state, reader(this.registries));
    const reg = new GenericRegistry(def, this.crdRegistry.store);
    const schemaNames: string[] = [];
    for (const v of spec.versions.filter((x) => x.served)) {
      const kindName = crSchemaName(spec.group, v.name, def.kind);
      const schema = toDSL(v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, true);
      const gvk = (kind: string) => [{ group: spec.group, version: v.name, kind }];
      setDynamicType(kindName, schema.kind === 'object' ? { ...schema, gvk: gvk(def.kind) } : { kind: 'object', properties: {}, description: schema.description, gvk: gvk(def.kind) });
      setDynamicType(`${kindName}List`, {
        kind: 'object', description: `${def.listKind} is a list of ${def.kind}`, required: ['items'], gvk: gvk(def.listKind),
        properties: {
          apiVersion: { kind: 'string' }, kind: { kind: 'string' },
          metadata: { kind: 'ref', name: 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta' },
          items: { kind: 'array', items: { kind: 'ref', name: kindName } },
        },
      });
      schemaNames.push(kindName, `${kindName}List`);
    }
    this.registries.add(reg);
    const generation = `${crd.metadata.uid}/${crd.metadata.generation}/${crd.metadata.resourceVersion}`;
    this.served.push(...resourceInfos([reg], []).map((i) => ({ ...i, definition: generation, customResource: true })));
    this.installed.set(name, { group: def.group, resource: def.resource, schemaNames, state, source });
    this.log.info('serving custom resource', { crd: name, resource: `${def.resource}.${def.group}` });
  }

  private uninstall(name: string): void {
    const inst = this.installed.get(name);
    if (!inst) return;
    this.installed.delete(name);
    this.registries.remove(inst.group, inst.resource);
    for (let i = this.served.length - 1; i >= 0; i--) {
      if (this.served[i].group === inst.group && this.served[i].resource === inst.resource) this.served.splice(i, 1);
    }
    for (const n of inst.schemaNames) setDynamicType(n, undefined);
    this.log.info('stopped serving custom resource', { crd: name });
  }

  /** The cleanup finalizer: delete every custom resource, then let the CRD go. */
  private async finalize(crd: KubeObject): Promise<void> {
    const name = crd.metadata.name as string;
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
    const inst = this.installed.get(name);
    if (inst) inst.state.terminating = true;
    const reg = inst && this.registries.get(inst.group, inst.resource);
    await this.writeStatus(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    if (reg) {
      const { items } = await reg.list({});
      for (const o of items) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          await reg.delete(o.metadata.namespace, o.metadata.name as string, { propagationPolicy: 'Background' }, this.ctx());
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
        }
      }
      const left = (await reg.list({ limit: 1 })).items.length;
      if (left) {
        // Objects with finalizers of their own go when their controllers let them.
        await this.writeStatus(crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: ${left} remaining` });
        return this.retry(name);
      }
    }
    await this.crdRegistry.update(undefined, name, (current) => {
      current.metadata.finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
      setCondition(current, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, new Date());
      return current;
    }, this.ctx());
  }

  private async writeStatus(crd: KubeObject, c: Parameters<typeof setCondition>[1]): Promise<void> {
    const probe = structuredClone(crd);
    if (!setCondition(probe, c, new Date())) return;
    const name = crd.metadata.name as string;
    const updated = await this.crdRegistry.update(undefined, name, (current) => {
      setCondition(current, c, new Date());
      return current;
    }, this.ctx(), 'status');
    this.crds.set(name, updated);
  }
}
