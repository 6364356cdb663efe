// Go's time.Duration text, both ways: what Kubernetes flags accept and what metav1.Duration
// and kubelet messages print.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Go-style durations as Kubernetes flags take them: 300ms, 40s, 5m, 1h30m, 1.5h. Returns ms.
 *  Throws on anything else (empty text, a bare number, an unknown unit). */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0, consumed = 0;
  for (let m; (m = re.exec(text)); ) {
    total += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    consumed += m[0].length;
  }
  if (!text || consumed !== text.length) throw new Error(`invalid duration "${text}"`);
  return total;
}

const trim = (x: number): string => String(Number(x.toFixed(9)));

/** Go's time.Duration.String() of `ns` nanoseconds: "0s", "1.5µs", "300ms", "5m0s", "1h0m0s". */
export function formatDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let n = Math.abs(ns);
  if (n < 1e9) {
    const [unit, div] = n < 1e3 ? ['ns', 1] : n < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trim(n / div)}${unit}`;
  }
  const h = Math.floor(n / 3.6e12);
  n -= h * 3.6e12;
  const m = Math.floor(n / 6e10);
  n -= m * 6e10;
  const s = `${trim(n / 1e9)}s`;
  return sign + (h ? `${h}h${m}m${s}` : m ? `${m}m${s}` : s);
}

/** `ms` rounded to whole seconds, as Go prints it ("10s", "1m20s", "5m0s"): the kubelet's
 *  back-off messages. */
export function formatSeconds(ms: number): string {
  return formatDuration(Math.round(ms / 1000) * 1e9);
}
