/** Go-style durations as Kubernetes flags take them: 300ms, 40s, 5m, 1h30m. Returns ms. */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0, consumed = 0;
  for (let m; (m = re.exec(text)); ) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    consumed += m[0].length;
  }
  if (!text || consumed !== text.length) throw new Error(`invalid duration "${text}"`);
  return total;
}
