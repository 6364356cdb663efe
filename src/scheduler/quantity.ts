// Kubernetes resource quantities ("100m", "1.5Gi", "2e3", "1k") as plain numbers: CPU in
// millicores and everything else in base units, rounded up as resource.Quantity's
// MilliValue/Value do, so a request never fits where Kubernetes would say it does not.
import { quantityFormatMessage, quantityValue } from '../api/quantity.js';

export class QuantityError extends Error {}

/** The quantity as a float in base units ("1500m" → 1.5). Throws QuantityError when malformed. */
export function parseQuantity(input: string | number): number {
  const v = quantityValue(input);
  if (v === null) throw new QuantityError(`${quantityFormatMessage}: "${input}"`);
  return v;
}

// Float error ("0.1" * 1000 = 100.00000000000001) must not round 100m up to 101m.
const roundUp = (v: number) => Math.ceil(Number(v.toPrecision(15)));

/** CPU in millicores, rounded up ("0.1" → 100, "1" → 1000, "250m" → 250). */
export function milliValue(q: string | number): number {
  return roundUp(parseQuantity(q) * 1000);
}

/** A quantity in whole base units, rounded up (bytes for memory, a count for pods). */
export function value(q: string | number): number {
  return roundUp(parseQuantity(q));
}
