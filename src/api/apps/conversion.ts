// Deployment conversion through the internal type. The internal DeploymentSpec has
// `rollbackTo` (served by apps/v1beta1); apps/v1 has no such field, so it travels in the
// annotation Kubernetes used for it, and v1-stored objects keep it across a round trip.
import type { Fields, KubeObject } from '../object.js';

export const rollbackAnnotation = 'deprecated.deployment.rollback.to';

function strip(o: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest as KubeObject;
}

export function deploymentV1ToInternal(o: KubeObject): KubeObject {
  const out = strip(o);
  const ann = out.metadata?.annotations;
  if (ann && ann[rollbackAnnotation] !== undefined) {
    const revision = Number(ann[rollbackAnnotation]);
    out.spec = { ...out.spec, rollbackTo: { revision: Number.isFinite(revision) ? revision : 0 } };
    const { [rollbackAnnotation]: _r, ...restAnn } = ann;
    out.metadata = { ...out.metadata, annotations: restAnn };
    if (!Object.keys(restAnn).length) delete out.metadata.annotations;
  }
  return out;
}

export function deploymentInternalToV1(o: KubeObject): KubeObject {
  const out = strip(o);
  if (out.spec?.rollbackTo) {
    const { rollbackTo, ...spec } = out.spec as Fields;
    out.spec = spec;
    out.metadata = { ...out.metadata, annotations: { ...out.metadata.annotations, [rollbackAnnotation]: String(rollbackTo.revision ?? 0) } };
  }
  return out;
}

/** apps/v1beta1's shape is the internal one. */
export const deploymentV1beta1ToInternal = strip;
export const deploymentInternalToV1beta1 = strip;

/** apps/v1beta1 defaults: a selector from the template's labels, and its own history limit. */
export function defaultDeploymentV1beta1(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  const labels = spec.template?.metadata?.labels;
  if (!spec.selector && labels) spec.selector = { matchLabels: { ...labels } };
  if (!o.metadata.labels && labels) o.metadata.labels = { ...labels };
  spec.revisionHistoryLimit ??= 2;
  spec.progressDeadlineSeconds ??= 600;
}

export function defaultDeploymentV1(o: KubeObject): void {
  const spec = o.spec ?? (o.spec = {});
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
}
