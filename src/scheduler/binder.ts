// Binding runs beside the scheduling loop: the loop assumes the pod and hands the bind here,
// then goes on to the next pod while at most `concurrency` POST pods/binding requests are
// in flight; the rest wait their turn in arrival order.
import type { ResourceAPI } from '../client/index.js';

export class Binder {
  private running = 0;
  private waiting: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(private pods: ResourceAPI, private concurrency: number) {}

  get inFlight(): number {
    return this.running + this.waiting.length;
  }

  /** POSTs the Binding; resolves when the API server accepted it. */
  async bind(namespace: string, name: string, uid: string, node: string): Promise<void> {
    if (this.running >= this.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      await this.pods.createSubresource(namespace, name, 'binding', {
        apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      });
    } finally {
      this.running--;
      const next = this.waiting.shift();
      if (next) next();
      else if (!this.running) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves once no bind is running or waiting. */
  idle(): Promise<void> {
    return this.inFlight ? new Promise((r) => this.idleWaiters.push(r)) : Promise.resolve();
  }
}
