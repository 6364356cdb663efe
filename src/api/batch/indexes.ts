// Sets of completion indexes in the interval form Jobs use on the wire ("1,3-5,7"):
// status.completedIndexes, status.failedIndexes and successPolicy.rules[].succeededIndexes.

/** Parses "1,3-5,7" into sorted unique indexes below `limit`; throws on a malformed list. */
export function parseIndexes(s: string | undefined, limit = Infinity): number[] {
  if (!s) return [];
  const out = new Set<number>();
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`cannot parse "${part}"`);
    const from = Number(m[1]), to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new Error(`interval "${part}" ends before it starts`);
    for (let i = from; i <= Math.min(to, limit - 1); i++) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** Formats indexes (any order, duplicates allowed) as sorted intervals: [7,1,3,4,5] → "1,3-5,7". */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** Checks the interval form without expanding it (validation of user input). */
export function indexesError(s: string, completions: number): string | null {
  let last = -1;
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return `cannot parse "${part}"`;
    const from = Number(m[1]), to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) return `the first element of the interval "${part}" is greater than the last`;
    if (from <= last) return 'the intervals must be sorted and not overlap';
    if (to >= completions) return `too large index: ${to}`;
    last = to;
  }
  return null;
}
