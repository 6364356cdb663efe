// At most `concurrency` tasks in flight; the rest wait in order. Keeps thousands of hollow
// nodes from opening thousands of requests at once against one connection pool.
export class Limiter {
  private active = 0;
  private waiting: (() => void)[] = [];

  constructor(readonly concurrency: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  get inFlight(): number {
    return this.active;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}
