// The LimitRanger admission plugin (upstream plugin/pkg/admission/limitranger): a new pod's
// containers get the namespace's LimitRange defaults for the requests and limits they do not
// set (noted in the `kubernetes.io/limit-ranger` annotation), then every Container and Pod
// item's min, max and maxLimitRequestRatio are checked, in upstream's words.
import type { Fields, KubeObject } from '../../api/object.js';
import { formatMilli, isByteResource, podLimits, podRequests, type ResourceAmounts } from '../../api/core/pod-resources.js';
import { milliValue } from '../../util/quantity.js';
import { admissionForbidden, isPodWrite, type AdmissionAttributes, type AdmissionPlugin } from '../admission.js';
import type { GenericRegistry, ListSource } from '../registry/index.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Quantities = Record<string, string>;

function amounts(list: unknown): ResourceAmounts {
  return new Map(Object.entries((list ?? {}) as Quantities).map(([k, v]) => [k, milliValue(v, 0)]));
}

/** Sets what a container leaves out; returns the annotation's phrases for it. */
function mergeDefaults(c: Fields, limits: Quantities, requests: Quantities, what: string): string[] {
  c.resources ??= {};
  const setLimits = Object.keys(limits).filter((k) => c.resources.limits?.[k] === undefined);
  const setRequests = Object.keys(requests).filter((k) => c.resources.requests?.[k] === undefined);
  if (setLimits.length) c.resources.limits = { ...c.resources.limits, ...Object.fromEntries(setLimits.map((k) => [k, limits[k]])) };
  if (setRequests.length) c.resources.requests = { ...c.resources.requests, ...Object.fromEntries(setRequests.map((k) => [k, requests[k]])) };
  const notes: string[] = [];
  if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${what} ${c.name}`);
  if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${what} ${c.name}`);
  return notes;
}

function applyDefaults(pod: KubeObject, ranges: KubeObject[]): void {
  const limits: Quantities = {}, requests: Quantities = {};
  for (const lr of ranges) {
    for (const item of (lr.spec?.limits ?? []) as Fields[]) {
      if (item.type !== 'Container') continue;
      // The first LimitRange that sets a default wins, as upstream runs them one by one.
      for (const [k, v] of Object.entries((item.defaultRequest ?? {}) as Quantities)) requests[k] ??= v;
      for (const [k, v] of Object.entries((item.default ?? {}) as Quantities)) limits[k] ??= v;
    }
  }
  if (!Object.keys(limits).length && !Object.keys(requests).length) return;
  const notes = [
    ...((pod.spec?.containers ?? []) as Fields[]).flatMap((c) => mergeDefaults(c, limits, requests, 'container')),
    ...((pod.spec?.initContainers ?? []) as Fields[]).flatMap((c) => mergeDefaults(c, limits, requests, 'init container')),
  ];
  if (notes.length) pod.metadata.annotations = { ...pod.metadata.annotations, [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
}

interface Observed { requests: ResourceAmounts; limits: ResourceAmounts; requestText: Quantities; limitText: Quantities }

function minConstraint(type: string, name: string, enforced: string, o: Observed): string | null {
  const e = milliValue(enforced, 0);
  const req = o.requests.get(name), lim = o.limits.get(name);
  if (req === undefined) return `minimum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (req < e) return `minimum ${name} usage per ${type} is ${enforced}, but request is ${o.requestText[name]}`;
  if (lim !== undefined && lim < e) return `minimum ${name} usage per ${type} is ${enforced}, but limit is ${o.limitText[name]}`;
  return null;
}

function maxConstraint(type: string, name: string, enforced: string, o: Observed): string | null {
  const e = milliValue(enforced, 0);
  const req = o.requests.get(name), lim = o.limits.get(name);
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${enforced}.  No limit is specified`;
  if (lim > e) return `maximum ${name} usage per ${type} is ${enforced}, but limit is ${o.limitText[name]}`;
  if (req !== undefined && req > e) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${o.requestText[name]}`;
  return null;
}

function ratioConstraint(type: string, name: string, enforced: string, o: Observed): string | null {
  const req = o.requests.get(name) ?? 0, lim = o.limits.get(name) ?? 0;
  if (!req) return `${name} max limit to request ratio per ${type} is ${enforced}, but no request is specified or request is 0`;
  if (!lim) return `${name} max limit to request ratio per ${type} is ${enforced}, but no limit is specified or limit is 0`;
  const ratio = lim / req;
  if (ratio * 1000 > milliValue(enforced, 0)) return `${name} max limit to request ratio per ${type} is ${enforced}, but provided ratio is ${ratio.toFixed(6)}`;
  return null;
}

function check(item: Fields, type: string, o: Observed): string[] {
  const errs: string[] = [];
  const each = (field: string, fn: typeof minConstraint) => {
    for (const [k, v] of Object.entries((item[field] ?? {}) as Quantities)) {
      const e = fn(type, k, String(v), o);
      if (e) errs.push(e);
    }
  };
  each('min', minConstraint);
  each('max', maxConstraint);
  each('maxLimitRequestRatio', ratioConstraint);
  return errs;
}

const text = (amounts: ResourceAmounts): Quantities => Object.fromEntries([...amounts].map(([k, v]) => [k, formatMilli(v, isByteResource(k))]));

function validatePod(pod: KubeObject, ranges: KubeObject[]): string[] {
  const errs: string[] = [];
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])] as Fields[];
  for (const lr of ranges) {
    for (const item of (lr.spec?.limits ?? []) as Fields[]) {
      if (item.type === 'Container') {
        for (const c of containers) {
          errs.push(...check(item, 'Container', {
            requests: amounts(c.resources?.requests), limits: amounts(c.resources?.limits),
            requestText: c.resources?.requests ?? {}, limitText: c.resources?.limits ?? {},
          }));
        }
      } else if (item.type === 'Pod') {
        const requests = podRequests(pod.spec), limits = podLimits(pod.spec);
        errs.push(...check(item, 'Pod', { requests, limits, requestText: text(requests), limitText: text(limits) }));
      }
    }
  }
  return errs;
}

/** `source`: where the LimitRanges are listed from (the watch cache once it has caught up with
 *  storage, as upstream's plugin reads its informer); every pod write asks, twice. */
export function limitRanger(limitRanges: GenericRegistry, source?: ListSource): AdmissionPlugin {
  const rangesFor = async (a: AdmissionAttributes) => (await limitRanges.list({ namespace: a.info.namespace, source })).items;
  return {
    name: 'LimitRanger',
    async mutate(a) {
      if (!isPodWrite(a) || a.object!.metadata.deletionTimestamp) return;
      const ranges = await rangesFor(a);
      if (ranges.length) applyDefaults(a.object!, ranges);
    },
    async validate(a) {
      if (!isPodWrite(a) || a.object!.metadata.deletionTimestamp) return;
      const ranges = await rangesFor(a);
      const errs = ranges.length ? validatePod(a.object!, ranges) : [];
      // utilerrors.NewAggregate: one error as itself, several in brackets.
      if (errs.length) throw admissionForbidden(a, errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    },
  };
}
