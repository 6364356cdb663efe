// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations, defaulted
// and validated as upstream (SetDefaults_*Webhook, ValidateWebhookConfiguration).
import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { duplicate, invalidValue, isDNS1123Subdomain, notSupported, required, type FieldError } from '../../../api/validation.js';
import { matchConditionErrors } from './policies.js';

/** The variables a webhook's matchConditions may read. */
export const MATCH_CONDITION_VARIABLES = ['object', 'oldObject', 'request', 'authorizer'] as const;

function defaults(o: KubeObject, mutating: boolean): void {
  for (const w of (o.webhooks ?? []) as Fields[]) {
    w.failurePolicy ??= 'Fail';
    w.matchPolicy ??= 'Equivalent';
    w.namespaceSelector ??= {};
    w.objectSelector ??= {};
    w.timeoutSeconds ??= 10;
    if (mutating) w.reinvocationPolicy ??= 'Never';
    for (const r of (w.rules ?? []) as Fields[]) r.scope ??= '*';
    if (w.clientConfig?.service) w.clientConfig.service.port ??= 443;
  }
}

const operations = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

function validateClientConfig(cc: Fields | undefined, p: string): FieldError[] {
  if (!cc || (!cc.url === !cc.service)) return [required(`${p}.clientConfig`, 'exactly one of url or service is required')];
  if (cc.url) {
    let url: URL;
    try { url = new URL(cc.url); } catch { return [invalidValue(`${p}.clientConfig.url`, cc.url, 'host must be specified')]; }
    if (url.protocol !== 'https:') return [invalidValue(`${p}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme")];
    if (url.username || url.password) return [invalidValue(`${p}.clientConfig.url`, cc.url, 'user information is not permitted in the URL')];
    if (url.hash || url.search) return [invalidValue(`${p}.clientConfig.url`, cc.url, 'fragments and query parameters are not permitted in the URL')];
    return [];
  }
  const s = cc.service as Fields;
  const errs: FieldError[] = [];
  if (!s.name) errs.push(required(`${p}.clientConfig.service.name`, 'service name is required'));
  if (!s.namespace) errs.push(required(`${p}.clientConfig.service.namespace`, 'service namespace is required'));
  if (s.port !== undefined && (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535)) errs.push(invalidValue(`${p}.clientConfig.service.port`, s.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (s.path !== undefined && !String(s.path).startsWith('/')) errs.push(invalidValue(`${p}.clientConfig.service.path`, s.path, "must start with a '/'"));
  return errs;
}

function validate(o: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ((o.webhooks ?? []) as Fields[]).forEach((w, i) => {
    const p = `webhooks[${i}]`;
    if (!w.name) errs.push(required(`${p}.name`));
    else {
      const e = isDNS1123Subdomain(w.name);
      if (e) errs.push(invalidValue(`${p}.name`, w.name, e));
      else if (w.name.split('.').length < 3) errs.push(invalidValue(`${p}.name`, w.name, 'should be a domain with at least three segments separated by dots'));
      if (names.has(w.name)) errs.push(duplicate(`${p}.name`, w.name));
      names.add(w.name);
    }
    if (w.sideEffects === undefined) errs.push(required(`${p}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    else if (!['None', 'NoneOnDryRun'].includes(w.sideEffects)) errs.push(notSupported(`${p}.sideEffects`, w.sideEffects, ['None', 'NoneOnDryRun']));
    const versions = (w.admissionReviewVersions ?? []) as string[];
    if (!versions.length) errs.push(required(`${p}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
    else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) errs.push(invalidValue(`${p}.admissionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
    if (w.timeoutSeconds !== undefined && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30)) errs.push(invalidValue(`${p}.timeoutSeconds`, w.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
    if (!['Fail', 'Ignore'].includes(w.failurePolicy)) errs.push(notSupported(`${p}.failurePolicy`, w.failurePolicy, ['Fail', 'Ignore']));
    if (!['Exact', 'Equivalent'].includes(w.matchPolicy)) errs.push(notSupported(`${p}.matchPolicy`, w.matchPolicy, ['Equivalent', 'Exact']));
    if (mutating && !['Never', 'IfNeeded'].includes(w.reinvocationPolicy)) errs.push(notSupported(`${p}.reinvocationPolicy`, w.reinvocationPolicy, ['IfNeeded', 'Never']));
    ((w.rules ?? []) as Fields[]).forEach((r, j) => {
      for (const [k, op] of ((r.operations ?? []) as string[]).entries()) if (!operations.includes(op)) errs.push(notSupported(`${p}.rules[${j}].operations[${k}]`, op, operations));
      if (!(r.apiVersions ?? []).length) errs.push(required(`${p}.rules[${j}].apiVersions`));
      if (!(r.resources ?? []).length) errs.push(required(`${p}.rules[${j}].resources`));
      if (!['Cluster', 'Namespaced', '*'].includes(r.scope)) errs.push(notSupported(`${p}.rules[${j}].scope`, r.scope, ['*', 'Cluster', 'Namespaced']));
    });
    errs.push(...validateClientConfig(w.clientConfig, p));
    errs.push(...matchConditionErrors((w.matchConditions ?? []) as Fields[], `${p}.matchConditions`, MATCH_CONDITION_VARIABLES));
  });
  return errs;
}

function configuration(kind: 'Mutating' | 'Validating'): ResourceDef {
  const mutating = kind === 'Mutating';
  const lower = kind.toLowerCase();
  return {
    group: 'admissionregistration.k8s.io', resource: `${lower}webhookconfigurations`, singular: `${lower}webhookconfiguration`,
    kind: `${kind}WebhookConfiguration`, listKind: `${kind}WebhookConfigurationList`, namespaced: false,
    categories: ['api-extensions'],
    versions: [identityVersion('v1', `io.k8s.api.admissionregistration.v1.${kind}WebhookConfiguration`, (o) => defaults(o, mutating))],
    storageVersion: 'v1',
    strategy: { defaults: (o) => defaults(o, mutating), validate: (o) => validate(o, mutating) },
    columns: [col('Webhooks', 'Number of webhooks.', (o) => (o.webhooks ?? []).length, 0, 'integer'), ageColumn],
  };
}

export const mutatingwebhookconfigurations = configuration('Mutating');
export const validatingwebhookconfigurations = configuration('Validating');
