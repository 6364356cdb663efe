// Kubernetes resource quantities ("100m", "1.5Gi", "2e3", "1k"): the format the API accepts
// and plain numbers for comparisons and limits — CPU in millicores and everything else in
// base units, rounded up as resource.Quantity's MilliValue/Value do, so a request never
// fits where Kubernetes would say it does not.

export const quantityPattern = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** Kubernetes' wording for a malformed quantity. */
export const quantityFormatMessage = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

export class QuantityError extends Error {}

/** The quantity in base units ("1500m" → 1.5), or null when it is malformed. */
export function quantityValue(input: unknown): number | null {
  if (typeof input === 'number') return Number.isFinite(input) ? input : null;
  if (typeof input !== 'string') return null;
  const m = quantityPattern.exec(input.trim());
  if (!m) return null;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return n * (binary[suffix] ?? decimal[suffix]);
}

/** The quantity as a float in base units ("1500m" → 1.5). Throws QuantityError when malformed. */
export function parseQuantity(input: unknown): number {
  const v = quantityValue(input);
  if (v === null) throw new QuantityError(`${quantityFormatMessage}: "${String(input)}"`);
  return v;
}

// Float error ("0.1" * 1000 = 100.00000000000001) must not round 100m up to 101m.
const roundUp = (v: number) => Math.ceil(Number(v.toPrecision(15)));

/** Thousandths, rounded up ("0.1" → 100, "1" → 1000, "250m" → 250): millicores for CPU.
 *  A malformed or absent quantity throws QuantityError, or gives `orElse` when one is passed. */
export function milliValue(q: unknown, orElse?: number): number {
  const v = quantityValue(q);
  if (v === null && orElse !== undefined) return orElse;
  return roundUp(parseQuantity(q) * 1000);
}

/** Whole base units, rounded up (bytes for memory, a count for pods); malformed as milliValue. */
export function value(q: unknown, orElse?: number): number {
  const v = quantityValue(q);
  if (v === null && orElse !== undefined) return orElse;
  return roundUp(parseQuantity(q));
}
