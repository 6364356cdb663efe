// Running a compiled program within a cost and time budget, with the authorizer library's
// asynchronous answers: a run that asked for answers not yet known is run again once they
// are in (each run is cheap and pure; the answers are kept for the request).
import { isCelError, type CelInput, type CelValue } from '@bufbuild/cel';
import type { Program } from './compile.js';
import { withBudget } from './cost.js';
import { PENDING, withAuthz, type AuthzSession } from './library/authz.js';

/** Upstream's per-expression runtime cost limit (apiserver's PerCallLimit). */
export const DEFAULT_COST_LIMIT = 1_000_000;
export const DEFAULT_TIMEOUT_MS = 1_000;

export interface EvalOptions {
  costLimit?: number;
  timeoutMs?: number;
  /** Answers the `authorizer` variable's checks; without it a check is an evaluation error. */
  authz?: AuthzSession;
}

export class EvalError extends Error {}

/** One run; an evaluation error is thrown as EvalError with CEL's message (cel-go's words for a missing map key). */
export function evaluateSync(p: Program, bindings: Record<string, CelInput>, opts: EvalOptions = {}): CelValue {
  const budget = { limit: opts.costLimit ?? DEFAULT_COST_LIMIT, deadline: Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS), used: 0 };
  const r = withAuthz(opts.authz, () => withBudget(budget, () => p.run(bindings)));
  if (isCelError(r)) throw new EvalError(r.message.replace(/^field not found: /, 'no such key: '));
  return r;
}

/** Runs until every authorization check it makes is answered (at most a few rounds). */
export async function evaluate(p: Program, bindings: Record<string, CelInput>, opts: EvalOptions = {}): Promise<CelValue> {
  for (let round = 0; ; round++) {
    try {
      return evaluateSync(p, bindings, opts);
    } catch (e) {
      const pending = opts.authz?.pending.splice(0) ?? [];
      if (!(e instanceof EvalError) || !pending.length || round >= 8) {
        if (e instanceof EvalError && e.message.includes(PENDING)) throw new EvalError('authorizer check did not settle');
        throw e;
      }
      await Promise.all(pending);
    }
  }
}
