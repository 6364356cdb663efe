// Terms of leadership for a component that shares its process: each term starts the
// component's loops afresh and the end of a term stops them, so a lost lease (an outage of the
// store behind the API server) pauses the component instead of ending the process. Starts and
// stops run one at a time in order; a term that ends before its start finished is stopped
// right after.
import type { Logger } from '../log/index.js';

export interface Term {
  /** Stops every loop the term started; must return even if the API server is unreachable. */
  stop(): Promise<void>;
}

export class LeaderTerms {
  private chain: Promise<void> = Promise.resolve();
  private term?: Term;

  constructor(private readonly begin: () => Promise<Term>, private readonly log: Logger) {}

  /** onStartedLeading. */
  started(): void {
    this.step(async () => { this.term ??= await this.begin(); });
  }

  /** onStoppedLeading, and shutdown. */
  stopped(): Promise<void> {
    return this.step(async () => {
      const term = this.term;
      this.term = undefined;
      await term?.stop();
    });
  }

  get leading(): boolean {
    return this.term !== undefined;
  }

  private step(fn: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(fn).catch((e) => this.log.error('leadership transition failed', { error: (e as Error).message }));
    return this.chain;
  }
}
