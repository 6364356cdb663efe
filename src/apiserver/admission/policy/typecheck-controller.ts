// The API server's ValidatingAdmissionPolicy status controller, as upstream's: each policy
// whose generation its status has not observed is type checked (typecheck.ts) and gets
// `status.observedGeneration` and `status.typeChecking` (empty when nothing was found),
// written through `/status`. It follows the watch cache, like the CRD controller.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../api/object.js';
import type { Registries } from '../../registry/index.js';
import type { GenericRegistry } from '../../registry/index.js';
import type { RequestContext } from '../../registry/types.js';
import type { WatchCache } from '../../../storage/watch-cache.js';
import type { Logger } from '../../../log/index.js';
import { typeCheckPolicy } from './typecheck.js';

export class PolicyStatusController {
  private stopFeed?: () => void;
  private stopped = false;
  private queue = new Set<string>();
  private running?: Promise<void>;

  constructor(private registries: Registries, private cache: WatchCache, private log: Logger) {}

  private get policies(): GenericRegistry {
    return this.registries.get('admissionregistration.k8s.io', 'validatingadmissionpolicies')!;
  }

  start(): void {
    const prefix = this.policies.key(undefined, '');
    const { items, revision } = this.cache.snapshot(prefix);
    for (const ev of items) this.observe(ev.key, ev.value, ev.revision);
    this.stopFeed = this.cache.subscribe(prefix, revision, (ev) => {
      if (ev.revision === -1) { this.stopFeed?.(); queueMicrotask(() => { if (!this.stopped) this.start(); }); return; }
      if (ev.type !== 'DELETE') this.observe(ev.key, ev.value, ev.revision);
    });
  }

  stop(): void {
    this.stopped = true;
    this.stopFeed?.();
  }

  /** Resolves once every policy seen so far has been checked (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private observe(key: string, value: Buffer, revision: number): void {
    let p: KubeObject;
    try { p = this.policies.decode(value, revision, key); } catch { return; }
    const status = (p.status ?? {}) as { observedGeneration?: number };
    if (status.observedGeneration === p.metadata.generation) return;
    this.queue.add(p.metadata.name!);
    this.running ??= this.drain().finally(() => { this.running = undefined; });
  }

  private async drain(): Promise<void> {
    while (this.queue.size && !this.stopped) {
      const name = this.queue.values().next().value!;
      this.queue.delete(name);
      try {
        await this.reconcile(name);
      } catch (e) {
        this.log.warn('ValidatingAdmissionPolicy type checking failed', { policy: name, error: (e as Error).message });
      }
    }
  }

  private async reconcile(name: string): Promise<void> {
    let policy: KubeObject;
    try { policy = await this.policies.get(undefined, name, this.cache); } catch { return; }
    const generation = policy.metadata.generation;
    const expressionWarnings = typeCheckPolicy(policy, (group, version, resource) => {
      const reg = this.registries.get(group, resource);
      return reg?.version(version) ? reg.def.kind : undefined;
    });
    const status = { ...(policy.status as object), observedGeneration: generation, typeChecking: expressionWarnings.length ? { expressionWarnings } : {} };
    if (isDeepStrictEqual(status, policy.status)) return;
    await this.policies.update(undefined, name, (current) => {
      // A newer spec is checked when its own event comes.
      if (current.metadata.generation !== generation) return current;
      return { ...current, status };
    }, this.ctx(), 'status');
  }

  private ctx(): RequestContext {
    return { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, now: new Date() };
  }
}
