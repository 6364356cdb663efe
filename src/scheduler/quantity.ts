// Kubernetes resource quantities ("100m", "1.5Gi", "2e3", "1k") as plain numbers: CPU in
// millicores and everything else in base units, rounded up as resource.Quantity's
// MilliValue/Value do, so a request never fits where Kubernetes would say it does not.

const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

const pattern = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

export class QuantityError extends Error {}

/** The quantity as a float in base units ("1500m" → 1.5). Throws QuantityError when malformed. */
export function parseQuantity(input: string | number): number {
  if (typeof input === 'number') return input;
  const m = pattern.exec(input.trim());
  if (!m) throw new QuantityError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': "${input}"`);
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return n * (binary[suffix] ?? decimal[suffix]);
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
