// A ValidatingAdmissionPolicy binding's evaluation as a stage of the request's trace
// (`admission.policy.<policy>`), with the labels of upstream's
// apiserver_validating_admission_policy_check_duration_seconds.
import { StatusError } from '../errors.js';
import { now, traceOf } from './request-trace.js';

/** `key` is the request's RequestInfo. */
export async function tracePolicyBinding<T>(key: object, policy: string, binding: string, fn: () => Promise<T>): Promise<T> {
  const trace = traceOf(key);
  if (!trace) return fn();
  const start = now();
  let action = 'allow';
  let error = 'no_error';
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StatusError) action = 'deny';
    else error = 'invocation_error';
    throw e;
  } finally {
    trace.add(`admission.policy.${policy}`, start, action === 'deny', { policy, policy_binding: binding, enforcement_action: action, error_type: error });
  }
}
