// The runtime bound of one evaluation: every comprehension step costs one (compile.ts puts
// the counter in each loop), and the wall clock is looked at every 1024 steps. Past either
// limit the step fails, which fails the whole expression as upstream's cost limit does.

export interface Budget { limit: number; deadline: number; used: number }

let current: Budget | undefined;

export const COST_EXCEEDED = 'operation cancelled: actual cost limit exceeded';
export const TIMED_OUT = 'operation cancelled: evaluation timed out';

export function tick(): void {
  if (!current) return;
  current.used++;
  if (current.used > current.limit) throw new Error(COST_EXCEEDED);
  if ((current.used & 1023) === 0 && Date.now() > current.deadline) throw new Error(TIMED_OUT);
}

/** Runs `fn` charging its steps to `budget`. */
export function withBudget<T>(budget: Budget, fn: () => T): T {
  const prev = current;
  current = budget;
  try { return fn(); } finally { current = prev; }
}
