// Reproducible random sources for randomized tests. Every seed is printed (or named in the
// subtest), and SEED=<n> replays exactly that one.

/** mulberry32: the same seed gives the same sequence in [0, 1). */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One seed (SEED, or a fresh one), printed with the test's name. */
export function seededRandom(name: string): { seed: number; random: () => number } {
  const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
  console.log(`# ${name}: seed ${seed}`);
  return { seed, random: mulberry32(seed) };
}

/**
 * Several seeds: the fixed ones a test always runs, plus `fresh` new ones each run, so
 * repeated CI runs cover more cases. SEED=<n> runs just that one.
 */
export function testSeeds(fixed: number[], fresh = 2): number[] {
  if (process.env.SEED) return [Number(process.env.SEED)];
  return [...fixed, ...Array.from({ length: fresh }, () => Math.floor(Math.random() * 2 ** 31))];
}
