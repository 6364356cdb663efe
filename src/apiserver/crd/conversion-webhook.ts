// The Webhook conversion strategy: custom resources are sent to the CRD's conversion webhook
// in a ConversionReview (apiextensions.k8s.io/v1), many objects in one review, and the
// answer is checked as upstream's webhook converter checks it (kind, uid, result, count).
// The call itself — caBundle, keep-alive pools, a `url` or a `service` resolved to an
// endpoint — is the admission webhooks' client.
import { randomUUID } from 'node:crypto';
import type { Fields, KubeObject } from '../../api/object.js';
import type { CRDSpec } from '../../api/apiextensions/validation.js';
import { StatusError } from '../errors.js';
import { post, resolveTarget, type ObjectReader } from '../admission/webhook/client.js';

/** Conversions that may need I/O. */
export interface AsyncConverter {
  /** `objs` (each carrying its apiVersion) in `apiVersion`, in order. */
  convertMany(objs: KubeObject[], apiVersion: string): Promise<KubeObject[]>;
}

/** Upstream's timeout for a conversion webhook call. */
const TIMEOUT_SECONDS = 30;

function convertedObjects(uid: string, reply: unknown): Fields[] {
  const review = (reply ?? {}) as Fields;
  const gvk = `${review.apiVersion ?? ''}, Kind=${review.kind ?? ''}`.replace(/^\//, '');
  if (review.apiVersion !== 'apiextensions.k8s.io/v1' || review.kind !== 'ConversionReview') {
    throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gvk}`);
  }
  const response = review.response as Fields | undefined;
  if (!response) throw new Error('no response provided');
  if (response.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${response.uid ?? ''}"`);
  const result = (response.result ?? {}) as Fields;
  if (result.status !== 'Success') throw new Error(result.message || `response.result.status was '${result.status ?? ''}', not 'Success'`);
  return (response.convertedObjects ?? []) as Fields[];
}

/**
 * A converted object keeps what the API server owns: only labels and annotations of its
 * metadata may change (upstream restores the rest), and it must be of the kind and version asked.
 */
function checked(original: KubeObject, converted: Fields, apiVersion: string): KubeObject {
  if (typeof converted !== 'object' || converted === null || Array.isArray(converted)) throw new Error('converted object is not an object');
  if (converted.kind !== original.kind) throw new Error(`invalid converted object: kind changed from ${original.kind} to ${converted.kind}`);
  if (converted.apiVersion !== apiVersion) throw new Error(`invalid converted object: apiVersion ${converted.apiVersion}, expected ${apiVersion}`);
  const meta = (converted.metadata ?? {}) as Fields;
  const restored = { ...structuredClone(original.metadata) };
  if (meta.labels !== undefined) restored.labels = meta.labels; else delete restored.labels;
  if (meta.annotations !== undefined) restored.annotations = meta.annotations; else delete restored.annotations;
  return { ...converted, metadata: restored } as KubeObject;
}

export function webhookConverter(spec: CRDSpec, read: ObjectReader): AsyncConverter {
  const webhook = (spec.conversion?.webhook ?? {}) as Fields;
  return {
    async convertMany(objs, apiVersion) {
      const todo = objs.filter((o) => o.apiVersion !== apiVersion);
      if (!todo.length) return objs;
      const source = `${todo[0].apiVersion}, Kind=${spec.names.kind}`;
      const fail = (e: unknown) => new StatusError(500, 'InternalError', `conversion webhook for ${source} failed: ${(e as Error).message}`);
      if (!((webhook.conversionReviewVersions ?? []) as string[]).includes('v1')) throw fail(new Error('no supported conversion review versions'));
      const uid = randomUUID();
      const review = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid, desiredAPIVersion: apiVersion, objects: todo } };
      let converted: Fields[];
      try {
        const target = await resolveTarget(webhook.clientConfig as Fields, read);
        let reply: unknown;
        try {
          reply = await post(target, (webhook.clientConfig as Fields).caBundle, review, TIMEOUT_SECONDS);
        } catch (e) {
          throw new Error(`Post "${target.display}?timeout=${TIMEOUT_SECONDS}s": ${(e as Error).message}`);
        }
        converted = convertedObjects(uid, reply);
      } catch (e) {
        throw fail(e);
      }
      if (converted.length !== todo.length) {
        throw new StatusError(500, 'InternalError', `conversion webhook for ${source} returned ${converted.length} objects, expected ${todo.length}`);
      }
      let next = 0;
      try {
        return objs.map((o) => (o.apiVersion === apiVersion ? o : checked(o, converted[next++], apiVersion)));
      } catch (e) {
        throw fail(e);
      }
    },
  };
}
