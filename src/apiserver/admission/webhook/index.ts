// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (k8s.io/apiserver
// webhook/mutating and /validating): the configurations' webhooks, in name order, that match
// a request are sent an AdmissionReview. Mutating ones are called one after another and
// their JSONPatch applied to the object (a webhook with reinvocationPolicy IfNeeded is called
// once more when a later webhook changed the object); validating ones are called at once.
// Warnings go to the client; a refusal keeps the webhook's message and code; a webhook that
// cannot be called fails the request (failurePolicy Fail) or is skipped (Ignore).
// matchConditions (CEL, conditions.ts) are evaluated last, after the rules and selectors.
import { isDeepStrictEqual } from 'node:util';
import type { Fields, KubeObject } from '../../../api/object.js';
import { ref } from '../../../api/schema.js';
import { applyPatch } from '../../patch/index.js';
import { StatusError } from '../../errors.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission.js';
import type { GenericRegistry, ListSource, Registries } from '../../registry/index.js';
import { matchingVersion, namespaceSelected, objectSelected } from './match.js';
import { admissionReview, reviewResponse } from './review.js';
import { callFailed, denied, post, resolveTarget, type ObjectReader } from './client.js';
import type { Logger } from '../../../log/index.js';
import type { DecisionAuthorizer } from '../../authz/index.js';
import { conditionsHold } from './conditions.js';
import { traced } from '../../trace/request-trace.js';

interface Deps { registries: Registries; source: ListSource; log: Logger; authorizer?: DecisionAuthorizer }

export function reader(registries: Registries): ObjectReader {
  return async (resource, namespace, name) => {
    try {
      return await registries.get('', resource)!.get(namespace, name);
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return undefined;
      throw e;
    }
  };
}

async function matchingWebhooks(configs: GenericRegistry, deps: Deps, a: AdmissionAttributes): Promise<{ webhook: Fields; version: string }[]> {
  // Webhook configurations are never sent to webhooks, as upstream: a broken webhook must not lock itself in.
  if (a.info.group === 'admissionregistration.k8s.io') return [];
  const { items } = await configs.list({ source: deps.source });
  const out: { webhook: Fields; version: string }[] = [];
  for (const cfg of [...items].sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1))) {
    for (const webhook of (cfg.webhooks ?? []) as Fields[]) {
      const version = matchingVersion(webhook, a);
      if (!version || !objectSelected(webhook, a)) continue;
      if (!await namespaceSelected(webhook, a, async (name) => {
        try { return await deps.registries.get('', 'namespaces')!.get(undefined, name); } catch { return undefined; }
      })) continue;
      if (!await conditionsHold(webhook, a, version, deps.authorizer, deps.log)) continue;
      out.push({ webhook, version });
    }
  }
  return out;
}

/**
 * `obj` (internal) as a webhook or policy matched in `version` sees it. A version a CRD's
 * conversion webhook converts is converted through it first (a copy: the object is patched
 * in place between calls, and the version remembers conversions by identity).
 */
export async function versionedObject(a: AdmissionAttributes, version: string, obj: KubeObject | undefined): Promise<KubeObject | undefined> {
  if (!obj) return undefined;
  // Subresources (Scale, Binding, TokenRequest) and CONNECT options are already in their wire form.
  if (a.info.subresource || a.operation === 'CONNECT') return structuredClone(obj);
  const v = a.registry.version(version);
  const copy = structuredClone(obj);
  await v?.prepare?.([copy]);
  const out = v ? v.fromInternal(copy) : copy;
  return { apiVersion: a.registry.def.group ? `${a.registry.def.group}/${version}` : version, kind: a.registry.def.kind, ...out };
}

/** One call: the response, or null when the webhook failed and its failurePolicy is Ignore. */
async function call(deps: Deps, a: AdmissionAttributes, webhook: Fields, version: string) {
  const timeout = webhook.timeoutSeconds ?? 10;
  let target = '';
  try {
    const t = await resolveTarget(webhook.clientConfig, reader(deps.registries));
    target = t.display;
    const { uid, body } = admissionReview(a, version, await versionedObject(a, version, a.object), await versionedObject(a, version, a.oldObject));
    let reply: unknown;
    try {
      reply = await post(t, webhook.clientConfig.caBundle, body, timeout);
    } catch (e) {
      throw callFailed(webhook.name, target, timeout, e);
    }
    try {
      return reviewResponse(reply, uid);
    } catch (e) {
      throw new StatusError(500, 'InternalError', `Internal error occurred: failed calling webhook "${webhook.name}": received invalid webhook response: ${(e as Error).message}`);
    }
  } catch (e) {
    const err = e instanceof StatusError ? e : callFailed(webhook.name, target || String(webhook.clientConfig?.url ?? ''), timeout, e);
    if (webhook.failurePolicy === 'Ignore') {
      deps.log.warn('failed calling webhook, failing open', { webhook: webhook.name, error: err.message });
      return null;
    }
    throw err;
  }
}

function warn(a: AdmissionAttributes, warnings: string[] | undefined): void {
  for (const w of warnings ?? []) a.warnings?.push(w);
}

/**
 * Applies a JSONPatch response to the object, in place (the handlers hold its reference); the
 * result converts back from the webhook's version, through the CRD's conversion webhook if need be.
 */
async function patchObject(a: AdmissionAttributes, webhook: Fields, version: string, patch: string): Promise<void> {
  const ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
  const current = (await versionedObject(a, version, a.object))!;
  let patched: KubeObject;
  try {
    patched = applyPatch('json', current, ops, ref(a.registry.version(version)?.schemaName ?? '')) as KubeObject;
  } catch (e) {
    throw new StatusError(500, 'InternalError', `Internal error occurred: admission webhook "${webhook.name}" returned an invalid patch: ${(e as Error).message}`);
  }
  const v = a.registry.version(version);
  const internal = a.info.subresource || !v ? patched : v.toInternalAsync ? await v.toInternalAsync(patched) : v.toInternal(patched);
  const obj = a.object!;
  for (const k of Object.keys(obj)) delete (obj as Fields)[k];
  Object.assign(obj, internal);
}

export function mutatingWebhooks(configs: GenericRegistry, deps: Deps): AdmissionPlugin {
  async function callOne(a: AdmissionAttributes, webhook: Fields, version: string): Promise<void> {
    const res = await traced(a.info, `admission.webhook.mutating.${webhook.name}`, () => call(deps, a, webhook, version), (r) => !!r && !r.allowed);
    if (!res) return;
    warn(a, res.warnings);
    if (!res.allowed) throw denied(webhook.name, res.status);
    if (res.patch && a.object) {
      if (res.patchType !== 'JSONPatch') throw new StatusError(500, 'InternalError', `Internal error occurred: admission webhook "${webhook.name}" returned an unsupported patch type ${JSON.stringify(res.patchType ?? '')}`);
      await patchObject(a, webhook, version, res.patch);
    }
  }
  return {
    name: 'MutatingAdmissionWebhook',
    async mutate(a) {
      const hooks = await matchingWebhooks(configs, deps, a);
      if (!hooks.length) return;
      const seenBy = new Map<Fields, unknown>();
      for (const { webhook, version } of hooks) {
        await callOne(a, webhook, version);
        seenBy.set(webhook, structuredClone(a.object));
      }
      // Reinvocation: once, for IfNeeded webhooks whose object a later webhook changed.
      for (const { webhook, version } of hooks) {
        if (webhook.reinvocationPolicy === 'IfNeeded' && !isDeepStrictEqual(seenBy.get(webhook), a.object)) await callOne(a, webhook, version);
      }
    },
  };
}

export function validatingWebhooks(configs: GenericRegistry, deps: Deps): AdmissionPlugin {
  return {
    name: 'ValidatingAdmissionWebhook',
    async validate(a) {
      const hooks = await matchingWebhooks(configs, deps, a);
      if (!hooks.length) return;
      const results = await Promise.allSettled(hooks.map(({ webhook, version }) => traced(a.info, `admission.webhook.validating.${webhook.name}`, () => call(deps, a, webhook, version), (r) => !!r && !r.allowed)));
      results.forEach((r) => { if (r.status === 'fulfilled' && r.value) warn(a, r.value.warnings); });
      results.forEach((r, i) => {
        if (r.status === 'rejected') throw r.reason;
        if (r.value && !r.value.allowed) throw denied(hooks[i].webhook.name, r.value.status);
      });
    },
  };
}
