// apiextensions.k8s.io/v1 CustomResourceDefinitions: validation as upstream, status with
// acceptedNames/conditions/storedVersions (written by src/apiserver/crd's controller), and
// deletion through the `customresourcecleanup.apiextensions.k8s.io` finalizer, which that
// controller removes once every custom resource is gone.
import type { KubeObject } from '../../../api/object.js';
import { rfc3339 } from '../../../api/time.js';
import { specOf, validateCRD, validateCRDUpdate } from '../../../api/apiextensions/validation.js';
import { identityVersion, specStrategy, statusStrategy } from '../common.js';
import type { ResourceDef } from '../types.js';
import type { FieldError } from '../../../api/validation.js';
import { schemaRuleErrors } from '../../crd/validation-rules.js';

/** x-kubernetes-validations that do not compile or cost too much (CEL lives in the API server, not in src/api). */
function ruleCompileErrors(o: KubeObject): FieldError[] {
  return (specOf(o)?.versions ?? []).flatMap((v, i) => schemaRuleErrors(v.schema?.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`));
}

export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** Sets a condition; lastTransitionTime changes only when the status does. Returns whether anything changed. */
export function setCondition(crd: KubeObject, c: CRDCondition, now: Date): boolean {
  const status = (crd.status ??= {}) as { conditions?: CRDCondition[] };
  const conditions = status.conditions ??= [];
  const i = conditions.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? conditions[i] : undefined;
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return false;
  const next = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : rfc3339(now) };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  return true;
}

export function conditionTrue(crd: KubeObject, type: string): boolean {
  return ((crd.status as { conditions?: CRDCondition[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

function defaults(o: KubeObject): void {
  const spec = o.spec as Record<string, unknown> | undefined;
  if (!spec) return;
  const names = spec.names as Record<string, unknown> | undefined;
  if (names && typeof names.kind === 'string') {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  const webhook = (spec.conversion as { webhook?: { clientConfig?: { service?: Record<string, unknown> } } }).webhook;
  if (webhook?.clientConfig?.service) webhook.clientConfig.service.port ??= 443;
}

function storageVersion(o: KubeObject): string | undefined {
  return specOf(o).versions?.find((v) => v.storage)?.name;
}

export const customresourcedefinitions: ResourceDef = {
  group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition', listKind: 'CustomResourceDefinitionList', namespaced: false,
  shortNames: ['crd', 'crds'], categories: ['api-extensions'],
  versions: [identityVersion('v1', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', defaults)],
  storageVersion: 'v1',
  strategy: specStrategy({
    initialStatus: (o) => {
      const sv = storageVersion(o);
      return { conditions: [], acceptedNames: { plural: '', kind: '' }, storedVersions: sv ? [sv] : [] };
    },
    prepareForCreate(o) { o.metadata.generation = 1; },
    prepareForUpdate(o) {
      // A new storage version is recorded as stored from now on.
      const sv = storageVersion(o);
      const status = o.status as { storedVersions?: string[] } | undefined;
      if (sv && status && !(status.storedVersions ?? []).includes(sv)) status.storedVersions = [...(status.storedVersions ?? []), sv];
    },
    defaults,
    validate: (o) => [...validateCRD(o), ...ruleCompileErrors(o)],
    validateUpdate: validateCRDUpdate,
  }),
  statusStrategy: statusStrategy(),
  onDelete(o, now) {
    if (o.metadata.deletionTimestamp) return true;
    const finalizers = o.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) o.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
    setCondition(o, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, now);
    return true;
  },
  // Where kube-apiserver keeps them, so a store moves between the two.
  storagePrefix: '/registry/apiextensions.k8s.io/customresourcedefinitions/',
  columns: [{ name: 'Created At', type: 'date', description: 'When the definition was created.', priority: 0, cell: (o) => o.metadata.creationTimestamp ?? '' }],
};
