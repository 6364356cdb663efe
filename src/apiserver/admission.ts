// Admission: checks and mutations between decoding and the strategy, in Kubernetes' order —
// every mutating plugin, then every validating one, each list in kube-apiserver's plugin
// order whatever order the plugins were built or named in. The built-in NamespaceLifecycle
// lives here; the other plugins in admission/, which plugins.ts orders and switches on.
import type { KubeObject } from '../api/object.js';
import { forbidden, notFound, StatusError } from './errors.js';
import type { GenericRegistry } from './registry/index.js';
import type { RequestInfo } from './request-info.js';
import type { UserInfo } from './authn/index.js';
import type { Store } from '../storage/store.js';
import { now, traceOf } from './trace/request-trace.js';

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  info: RequestInfo;
  user: UserInfo;
  registry: GenericRegistry;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /**
   * Warnings for the client (`Warning: 299` headers); plugins push onto it. Absent where a
   * path has no reply to carry them.
   */
  warnings?: string[];
  /**
   * What upstream would put in the request's audit event as annotations (capstan has no audit
   * log: the API server logs them); plugins set keys, as upstream's AddAnnotation.
   */
  auditAnnotations?: Record<string, string>;
}

export interface AdmissionPlugin {
  name: string;
  mutate?(a: AdmissionAttributes): Promise<void>;
  validate?(a: AdmissionAttributes): Promise<void>;
}

export class AdmissionChain {
  private readonly steps: { name: string; run: (a: AdmissionAttributes) => Promise<void> }[] = [];

  /** Plugins are run in the order given; `admissionChain` (plugins.ts) orders them as upstream. */
  constructor(readonly plugins: AdmissionPlugin[]) {
    for (const p of plugins) if (p.mutate) this.steps.push({ name: `admission.mutating.${p.name}`, run: (a) => p.mutate!(a) });
    for (const p of plugins) if (p.validate) this.steps.push({ name: `admission.validating.${p.name}`, run: (a) => p.validate!(a) });
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    // Each plugin is a stage of the request's trace (Server-Timing, admission metrics).
    const trace = traceOf(a.info);
    for (const step of this.steps) {
      if (!trace) { await step.run(a); continue; }
      const start = now();
      try {
        await step.run(a);
      } catch (e) {
        trace.add(step.name, start, true);
        throw e;
      }
      trace.add(step.name, start);
    }
  }
}

/** `pods "web" is forbidden: …` (or `pods is forbidden: …` without a name), as admission.NewForbidden words it. */
export function admissionForbidden(a: AdmissionAttributes, message: string): StatusError {
  const resource = a.info.group ? `${a.info.resource}.${a.info.group}` : a.info.resource;
  const name = a.info.name || a.object?.metadata.name || '';
  return forbidden(name ? `${resource} "${name}" is forbidden: ${message}` : `${resource} is forbidden: ${message}`, {
    name: name || undefined, group: a.info.group || undefined, kind: a.info.resource,
  });
}

/** A create or update of a pod itself (not a subresource): what the pod plugins look at. */
export function isPodWrite(a: AdmissionAttributes, ops: AdmissionAttributes['operation'][] = ['CREATE']): boolean {
  return a.info.group === '' && a.info.resource === 'pods' && !a.info.subresource && ops.includes(a.operation) && a.object !== undefined;
}

const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Objects need an existing, non-terminating namespace; the system namespaces cannot go.
 * `source`: where the namespace is read from (the watch cache once caught up with storage).
 */
export function namespaceLifecycle(namespaces: GenericRegistry, source?: Pick<Store, 'get'>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async validate(a) {
      const { info } = a;
      if (info.resource === 'namespaces') {
        if (a.operation === 'DELETE' && immortalNamespaces.has(info.name)) {
          throw forbidden(`namespace ${info.name} is protected and cannot be deleted`, { name: info.name, kind: 'namespaces' });
        }
        return;
      }
      if (!a.registry.def.namespaced || a.operation !== 'CREATE') return;
      let ns: KubeObject;
      try {
        ns = await namespaces.get(undefined, info.namespace, source);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) throw notFound('namespaces', '', info.namespace);
        throw e;
      }
      if (ns.metadata.deletionTimestamp && !(info.resource === 'events' || info.subresource)) {
        throw new StatusError(403, 'Forbidden', `${a.registry.def.resource} "${a.object?.metadata.name ?? ''}" is forbidden: unable to create new content in namespace ${info.namespace} because it is being terminated`, {
          name: a.object?.metadata.name, kind: a.registry.def.resource, group: a.registry.def.group,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${info.namespace} is being terminated`, field: 'metadata.namespace' }],
        });
      }
    },
  };
}
