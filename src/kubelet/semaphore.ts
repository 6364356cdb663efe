// At most N holders at once, FIFO.
export class Semaphore {
  private waiting: (() => void)[] = [];
  private held = 0;

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Waits for a place; the function returned gives it back (calling it again does nothing). */
  async acquire(): Promise<() => void> {
    if (this.held >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }
}
