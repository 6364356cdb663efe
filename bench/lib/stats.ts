// Small, generic statistics for benchmark samples (milliseconds or anything else).

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function summarize(samples: number[]): Summary {
  const n = samples.length;
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => (n ? sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]! : NaN);
  // No Math.min(...samples): hundreds of thousands of arguments overflow the stack.
  return { n, p50: at(50), p99: at(99), mean: n ? samples.reduce((a, b) => a + b, 0) / n : NaN, min: n ? sorted[0]! : NaN, max: n ? sorted[n - 1]! : NaN };
}

/** Milliseconds since `start` (a process.hrtime.bigint() value). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Times one async call in milliseconds. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return msSince(start);
}

export const fmtMs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);
export const fmtRatio = (baseline: number, candidate: number): string => `${(baseline / candidate).toFixed(1)}×`;
export const fmtBytes = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MiB`;
