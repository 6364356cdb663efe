// A webhook's matchConditions (CEL over object, oldObject, request and authorizer), as
// upstream's matchconditions.Matcher: any false skips the webhook; all true calls it; an
// error with none false refuses the request with a Forbidden (failurePolicy Fail) or skips
// the webhook (Ignore).
import type { Fields } from '../../../api/object.js';
import { admissionForbidden, type AdmissionAttributes } from '../../admission.js';
import type { DecisionAuthorizer } from '../../authz/index.js';
import { compile, evaluate } from '../../cel/index.js';
import { authzSession, requestBindings } from '../policy/request.js';
import type { Logger } from '../../../log/index.js';
import { MATCH_CONDITION_VARIABLES } from '../../registry/admissionregistration/webhooks.js';


export async function conditionsHold(webhook: Fields, a: AdmissionAttributes, version: string, authorizer: DecisionAuthorizer | undefined, log: Logger): Promise<boolean> {
  const conditions = (webhook.matchConditions ?? []) as Fields[];
  if (!conditions.length) return true;
  const vars = await requestBindings(a, version);
  const opts = authorizer ? { authz: authzSession(authorizer, a.user) } : {};
  const errors: string[] = [];
  for (const c of conditions) {
    try {
      const r = await evaluate(compile(c.expression, MATCH_CONDITION_VARIABLES), vars, opts);
      if (r === false) return false;
      if (r !== true) errors.push(`expression '${c.expression}' must evaluate to bool`);
    } catch (e) {
      errors.push(`expression '${c.expression}' resulted in error: ${(e as Error).message}`);
    }
  }
  if (!errors.length) return true;
  if (webhook.failurePolicy === 'Ignore') {
    log.warn('match conditions failed, webhook skipped by its failurePolicy', { webhook: webhook.name, errors });
    return false;
  }
  // Upstream fails closed with a Forbidden carrying the errors (utilerrors.NewAggregate's wording).
  log.warn('failed evaluating match conditions, failing closed', { webhook: webhook.name, errors });
  throw admissionForbidden(a, errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
}
