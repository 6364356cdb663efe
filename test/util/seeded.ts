// A reproducible random source for randomized tests: the seed is printed so a failure can
// be replayed with SEED=<n>.
export function seededRandom(name: string): { seed: number; random: () => number } {
  const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
  console.log(`# ${name}: seed ${seed}`);
  let s = seed >>> 0;
  // mulberry32
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, random };
}
