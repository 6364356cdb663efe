// The AdmissionReview (admission.k8s.io/v1) a webhook is sent, and what its answer means.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../api/object.js';
import type { AdmissionAttributes } from '../../admission.js';

const optionsKind: Record<string, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

export function admissionReview(a: AdmissionAttributes, version: string, object?: KubeObject, oldObject?: KubeObject): { uid: string; body: Record<string, unknown> } {
  const uid = randomUUID();
  const def = a.registry.def;
  const gvk = { group: def.group, version, kind: a.info.subresource === 'scale' ? 'Scale' : (object ?? oldObject)?.kind ?? def.kind };
  const gvr = { group: def.group, version, resource: def.resource };
  const request: Record<string, unknown> = {
    uid, kind: gvk, resource: gvr,
    requestKind: { ...gvk, version: a.info.version }, requestResource: { ...gvr, version: a.info.version },
    name: a.info.name || object?.metadata?.name || undefined,
    namespace: a.info.namespace || undefined,
    operation: a.operation,
    userInfo: { username: a.user.username, ...(a.user.uid ? { uid: a.user.uid } : {}), groups: a.user.groups, ...(a.user.extra ? { extra: a.user.extra } : {}) },
    object: object ?? null, oldObject: oldObject ?? null,
    dryRun: a.dryRun,
    options: optionsKind[a.operation] ? { kind: optionsKind[a.operation], apiVersion: 'meta.k8s.io/v1' } : null,
  };
  if (a.info.subresource) { request.subResource = a.info.subresource; request.requestSubResource = a.info.subresource; }
  return { uid, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request } };
}

export interface ReviewResponse {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string };
  patch?: string;
  patchType?: string;
  warnings?: string[];
}

/** The response of a reply, checked as upstream: the right kind and the request's uid. */
export function reviewResponse(body: unknown, uid: string): ReviewResponse {
  const review = body as { apiVersion?: string; kind?: string; response?: ReviewResponse & { uid?: string } };
  if (!review || typeof review !== 'object' || review.kind !== 'AdmissionReview') throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(review?.apiVersion)}, Kind=${String(review?.kind)}`);
  if (!review.response) throw new Error('webhook response was absent');
  if (review.response.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(review.response.uid ?? '')}`);
  return review.response;
}
