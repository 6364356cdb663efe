// A webhook's matchConditions (CEL over object, oldObject, request and authorizer), as
// upstream's matchconditions.Matcher: any false skips the webhook; all true calls it; an
// error with none false fails the request (failurePolicy Fail) or skips the webhook (Ignore).
import type { Fields } from '../../../api/object.js';
import type { AdmissionAttributes } from '../../admission.js';
import type { DecisionAuthorizer } from '../../authz/index.js';
import { StatusError } from '../../errors.js';
import { compile, evaluate } from '../../cel/index.js';
import { authzSession, requestBindings } from '../policy/request.js';
import type { Logger } from '../../../log/index.js';
import { MATCH_CONDITION_VARIABLES } from '../../registry/admissionregistration/webhooks.js';


export async function conditionsHold(webhook: Fields, a: AdmissionAttributes, version: string, authorizer: DecisionAuthorizer | undefined, log: Logger): Promise<boolean> {
  const conditions = (webhook.matchConditions ?? []) as Fields[];
  if (!conditions.length) return true;
  const vars = requestBindings(a, version);
  const opts = authorizer ? { authz: authzSession(authorizer, a.user) } : {};
  const errors: string[] = [];
  for (const c of conditions) {
    try {
      const r = await evaluate(compile(c.expression, MATCH_CONDITION_VARIABLES), vars, opts);
      if (r === false) return false;
      if (r !== true) errors.push(`matchCondition '${c.name}' did not evaluate to a boolean`);
    } catch (e) {
      errors.push(`matchCondition '${c.name}': ${(e as Error).message}`);
    }
  }
  if (!errors.length) return true;
  const message = `failed calling webhook "${webhook.name}": failed to evaluate match conditions: ${errors.join('; ')}`;
  if (webhook.failurePolicy === 'Ignore') {
    log.warn('match conditions failed, webhook skipped by its failurePolicy', { webhook: webhook.name, error: message });
    return false;
  }
  throw new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
}
