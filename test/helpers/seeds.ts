// Seeds for randomised tests: the fixed ones a test always runs, plus fresh random ones each
// run, so repeated CI runs cover more cases. Every seed is in the subtest's name, and
// CAPSTAN_TEST_SEED=<n> replays exactly that one.

/** A small deterministic generator (an LCG): the same seed gives the same sequence. */
export function lcg(seed: number): () => number {
  let s = seed & 0x7fffffff;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

export function testSeeds(fixed: number[], fresh = 2): number[] {
  const only = process.env['CAPSTAN_TEST_SEED'];
  if (only !== undefined && only !== '') return [Number(only)];
  return [...fixed, ...Array.from({ length: fresh }, () => 1 + Math.floor(Math.random() * 0x7ffffffe))];
}
