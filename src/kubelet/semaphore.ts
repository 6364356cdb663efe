// At most N holders at once, FIFO.
export class Semaphore {
  private waiting: (() => void)[] = [];
  private held = 0;

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.held >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.held++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    }
  }
}
