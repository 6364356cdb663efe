// Encoded replies to cluster names, so a repeated question costs a map lookup and a copy
// instead of a lookup and an encode. Any change to the Zone clears it (answers are cheap to
// rebuild; a stale one is not acceptable). Forwarded replies are never cached here: the
// upstream's TTLs are its business.
export class ResponseCache {
  private entries = new Map<string, Buffer>();
  hits = 0;
  misses = 0;

  constructor(private max = 10_000) {}

  get(key: string): Buffer | undefined {
    const b = this.entries.get(key);
    if (b) this.hits++;
    else this.misses++;
    return b;
  }

  set(key: string, reply: Buffer): void {
    if (this.max <= 0) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, reply);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
