// Throughput and latency figures for a run of timed operations.

export interface BenchResult {
  name: string;
  count: number;
  concurrency: number;
  seconds: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Every call's latency in ms, in the order the calls were issued. */
  samples: number[];
}

/** Runs `op(i)` for i in [0, count) on `concurrency` workers, timing each call. */
export async function timeOps(
  name: string,
  count: number,
  concurrency: number,
  op: (i: number) => Promise<unknown> | unknown,
): Promise<BenchResult> {
  const latencies = new Float64Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const t0 = process.hrtime.bigint();
      await op(i);
      latencies[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const samples = Array.from(latencies);
  latencies.sort();
  return {
    name,
    count,
    concurrency,
    seconds,
    opsPerSec: count / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    samples,
  };
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export function formatResult(r: BenchResult): string {
  return `${r.name.padEnd(40)} ${String(r.count).padStart(7)} ops  c=${String(r.concurrency).padStart(3)}  ` +
    `${r.opsPerSec.toFixed(0).padStart(7)} ops/s  p50 ${r.p50Ms.toFixed(3)} ms  p99 ${r.p99Ms.toFixed(3)} ms`;
}
