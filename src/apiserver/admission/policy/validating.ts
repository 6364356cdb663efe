// The ValidatingAdmissionPolicy plugin (apiserver's admission/plugin/policy/validating): for
// every binding whose policy matches the request, the policy's CEL runs per parameter object —
// matchConditions, then variables, then validations — and each failure is acted on as the
// binding says: Deny refuses the request in upstream's words, Warn adds a Warning header,
// Audit records upstream's `validation.policy.admission.k8s.io/validation_failure` audit
// annotation (a JSON list of the failures), as auditAnnotations record `<policy>/<key>`;
// capstan has no audit log, so the request's annotations are logged. An expression that cannot be evaluated, or
// parameters that cannot be resolved, fail the request or are ignored by failurePolicy.
import { celMap, isCelError, celError, type CelInput, type CelValue } from '@bufbuild/cel';
import type { Fields, KubeObject } from '../../../api/object.js';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from '../../admission.js';
import type { DecisionAuthorizer } from '../../authz/index.js';
import { StatusError } from '../../errors.js';
import type { ListSource, Registries } from '../../registry/index.js';
import type { Store } from '../../../storage/store.js';
import type { Logger } from '../../../log/index.js';
import { compile, evaluate, fromCel, toCel, type EvalOptions } from '../../cel/index.js';
import { POLICY_VARIABLES } from '../../registry/admissionregistration/policies.js';
import { matchResources } from './match.js';
import { ParamError, resolveParams } from './params.js';
import { authzSession, requestBindings } from './request.js';
import { tracePolicyBinding } from '../../trace/policy.js';

/** `source` is the watch cache: policies, bindings, params and namespaces are read from it, as upstream reads its informers. */
interface Deps { registries: Registries; source: ListSource & Pick<Store, 'get'>; authorizer: DecisionAuthorizer; log: Logger }

const GROUP = 'admissionregistration.k8s.io';
const codes: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/** Thrown inside one binding's evaluation when failurePolicy decides (an error, not a validation failure). */
class PolicyError extends Error {}

interface Failure { message: string; reason: string; expressionIndex: number }

/** Upstream's audit annotation key for failures under the Audit action. */
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

async function run(expr: string, vars: Record<string, CelInput>, opts: EvalOptions): Promise<CelValue> {
  try {
    return await evaluate(compile(expr, POLICY_VARIABLES), vars, opts);
  } catch (e) {
    throw new PolicyError(`expression '${expr}' resulted in error: ${(e as Error).message}`);
  }
}

/** The failures of one policy for one parameter object; [] when it holds or a match condition is false. */
async function evaluatePolicy(spec: Fields, vars: Record<string, CelInput>, opts: EvalOptions): Promise<Failure[]> {
  // Any false skips the policy, even when another condition failed to evaluate.
  let conditionError: PolicyError | undefined;
  for (const c of (spec.matchConditions ?? []) as Fields[]) {
    try {
      const r = await run(c.expression, vars, opts);
      if (r === false) return [];
      if (r !== true) conditionError ??= new PolicyError(`matchCondition '${c.name}' resulted in a non-boolean value`);
    } catch (e) {
      conditionError ??= e as PolicyError;
    }
  }
  if (conditionError) throw conditionError;
  // Variables are evaluated in order; a failing one is an error only where it is read.
  const variables = new Map<string, CelValue>();
  vars.variables = celMap(variables);
  for (const v of (spec.variables ?? []) as Fields[]) {
    try { variables.set(v.name, await run(v.expression, vars, opts)); } catch (e) { variables.set(v.name, celError((e as Error).message) as never); }
  }
  const failures: Failure[] = [];
  for (const [expressionIndex, v] of ((spec.validations ?? []) as Fields[]).entries()) {
    const r = await run(v.expression, vars, opts);
    if (r === true) continue;
    if (r !== false) throw new PolicyError(`expression '${v.expression}' resulted in a non-boolean value`);
    let message = v.message || `failed expression: ${v.expression}`;
    if (v.messageExpression) {
      try {
        const m = await run(v.messageExpression, vars, opts);
        if (typeof m === 'string' && m.trim() && !m.includes('\n')) message = m;
      } catch { /* upstream keeps the static message when messageExpression fails */ }
    }
    failures.push({ message, reason: v.reason ?? 'Invalid', expressionIndex });
  }
  return failures;
}

/** Whether any of the policy's expressions names `variable` (namespaceObject and authorizer are built only then). */
function mentions(spec: Fields, variable: string): boolean {
  const exprs = [...(spec.validations ?? []), ...(spec.variables ?? []), ...(spec.matchConditions ?? []), ...(spec.auditAnnotations ?? [])] as Fields[];
  return exprs.some((e) => [e.expression, e.messageExpression, e.valueExpression].some((x) => typeof x === 'string' && x.includes(variable)));
}

/** As upstream: admission's Forbidden error (`deployments.apps "web" is forbidden: …`) with the validation's reason and code, and the message as a cause. */
function deny(a: AdmissionAttributes, policy: string, binding: string, f: Failure): StatusError {
  const message = `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${f.message}`;
  const base = admissionForbidden(a, message);
  return new StatusError(codes[f.reason] ?? 422, f.reason, base.message, { ...base.details, causes: [{ message, field: '' }] });
}

export function validatingAdmissionPolicy(deps: Deps): AdmissionPlugin {
  const reg = (resource: string) => deps.registries.get(GROUP, resource)!;
  const namespaceOf = async (name: string): Promise<KubeObject | undefined> => {
    try { return await deps.registries.get('', 'namespaces')!.get(undefined, name, deps.source); } catch { return undefined; }
  };
  return {
    name: 'ValidatingAdmissionPolicy',
    async validate(a) {
      // The policies' own resources are never validated by policies, as upstream: a bad policy must not lock itself in.
      if (a.info.group === GROUP) return;
      const [{ items: bindings }, { items: policies }] = await Promise.all([reg('validatingadmissionpolicybindings').list({ source: deps.source }), reg('validatingadmissionpolicies').list({ source: deps.source })]);
      if (!bindings.length) return;
      const byName = new Map(policies.map((p) => [p.metadata.name!, p]));
      let authz: ReturnType<typeof authzSession> | undefined;
      const audit: Record<string, string> = {};
      try {
        await validateBindings(a, bindings, byName, audit, () => (authz ??= authzSession(deps.authorizer, a.user)));
      } finally {
        if (Object.keys(audit).length) {
          Object.assign(a.auditAnnotations ??= {}, audit);
          deps.log.info('ValidatingAdmissionPolicy audit annotations', { resource: a.info.resource, namespace: a.info.namespace, name: a.info.name || a.object?.metadata.name, annotations: audit });
        }
      }
    },
  };

  async function validateBindings(a: AdmissionAttributes, bindings: KubeObject[], byName: Map<string, KubeObject>, audit: Record<string, string>, authzFor: () => ReturnType<typeof authzSession>): Promise<void> {
    for (const binding of [...bindings].sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1))) {
      const bspec = (binding.spec ?? {}) as Fields;
      const policy = byName.get(bspec.policyName);
      if (!policy) continue;
      const spec = (policy.spec ?? {}) as Fields;
      const version = await matchResources(spec.matchConstraints, a, namespaceOf, false);
      if (!version || !await matchResources(bspec.matchResources, a, namespaceOf, true)) continue;
      const names = { policy: policy.metadata.name!, binding: binding.metadata.name! };
      const authz = authzFor();
      try {
        await tracePolicyBinding(a.info, names.policy, names.binding, () => applyBinding(a, spec, bspec, version, names, authz, audit));
      } catch (e) {
        if (e instanceof StatusError) throw e;
        if (!(e instanceof PolicyError || e instanceof ParamError)) throw e;
        if (spec.failurePolicy === 'Ignore') {
          deps.log.warn('ValidatingAdmissionPolicy failed, ignored by its failurePolicy', { ...names, error: e.message });
          continue;
        }
        // Under Fail an error is enforced by the binding's actions, like a false validation.
        enforce(a, bspec, names, { message: e.message, reason: 'Invalid', expressionIndex: 0 }, audit);
      }
    }
  }

  /**
   * A failure acted on as the binding says: Deny throws, Warn adds a warning, Audit adds it to
   * the request's validation_failure annotation (recorded before a Deny throws, as upstream).
   */
  function enforce(a: AdmissionAttributes, bspec: Fields, names: { policy: string; binding: string }, f: Failure, audit: Record<string, string>): void {
    const actions = (bspec.validationActions ?? []) as string[];
    if (actions.includes('Audit')) {
      const failures = JSON.parse(audit[VALIDATION_FAILURE_ANNOTATION] ?? '[]') as unknown[];
      failures.push({ message: f.message, policy: names.policy, binding: names.binding, expressionIndex: f.expressionIndex, validationActions: actions });
      audit[VALIDATION_FAILURE_ANNOTATION] = JSON.stringify(failures);
    }
    if (actions.includes('Deny')) throw deny(a, names.policy, names.binding, f);
    if (actions.includes('Warn')) a.warnings?.push(`Validation failed for ValidatingAdmissionPolicy '${names.policy}' with binding '${names.binding}': ${f.message}`);
  }

  async function applyBinding(a: AdmissionAttributes, spec: Fields, bspec: Fields, version: string, names: { policy: string; binding: string }, authz: ReturnType<typeof authzSession>, audit: Record<string, string>): Promise<void> {
    // A policy with a paramKind bound without a paramRef runs with params null, as upstream.
    let params: (KubeObject | null)[] = [null];
    if (spec.paramKind && bspec.paramRef) {
      params = await resolveParams(deps.registries, deps.source, spec.paramKind, bspec.paramRef, a.info.namespace ?? '');
      if (!params.length) {
        if (bspec.paramRef?.parameterNotFoundAction === 'Allow') return;
        throw new ParamError('no params found for policy binding with `Deny` parameterNotFoundAction');
      }
    }
    const base = await requestBindings(a, version, mentions(spec, 'authorizer'));
    // The namespace is read only for a policy that names it.
    const ns = a.registry.def.namespaced && a.info.namespace && mentions(spec, 'namespaceObject') ? await namespaceOf(a.info.namespace) : undefined;
    base.namespaceObject = toCel(ns && { apiVersion: 'v1', kind: 'Namespace', ...ns });
    for (const p of params) {
      const failures = await evaluatePolicy(spec, { ...base, params: toCel(p) }, { authz });
      for (const f of failures) enforce(a, bspec, names, f, audit);
    }
    for (const aa of (spec.auditAnnotations ?? []) as Fields[]) {
      const v = await run(aa.valueExpression, { ...base, params: toCel(params[0]) }, { authz }).catch(() => null);
      // A null value leaves the annotation out, as upstream.
      if (v !== null && !isCelError(v)) audit[`${names.policy}/${aa.key}`] = typeof v === 'string' ? v : JSON.stringify(fromCel(v));
    }
  }
}
