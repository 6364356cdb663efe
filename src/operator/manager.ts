// The manager runs an operator's reconcilers: one connection to the API server, and per term
// of leadership (a coordination.k8s.io/v1 Lease, when leader election is on) fresh shared
// informers and controllers, so a replica that lost the lease stops acting at once and a new
// term starts from a relist, as the controller-manager does.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { ObjectBase } from '../api/object.js';
import { Clientset, EventRecorder, LeaderElector, LeaderTerms, RESTClient, SharedInformerFactory, realClock, resources, type Clock, type Term } from '../client/index.js';
import { defaultControllerConfig, type ControllerContext } from '../controllers/framework.js';
import { logger, type Logger } from '../log/index.js';
import type { Connection } from './config.js';
import { OperatorController, type Reconciler } from './controller.js';

export interface LeaderElectionOptions {
  /** Default: the namespace the operator runs in. */
  namespace?: string;
  /** The Lease's name. Default: the manager's name. */
  name?: string;
  /** Default: hostname_random (a pod's hostname is its name). */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface ManagerOptions {
  /** The operator's name: its user agent and field manager. */
  name: string;
  connection: Connection;
  /** Off when absent: one replica acts. */
  leaderElection?: LeaderElectionOptions;
  /** Reconcile workers per reconciler (default 2). */
  workers?: number;
  /** Every cached object is reconciled again this often (default 10 min): drift outside watched kinds heals. */
  resyncMs?: number;
  log?: Logger;
  clock?: Clock;
}

export class Manager {
  readonly clients: Clientset;
  readonly log: Logger;
  private readonly reconcilers: Reconciler<ObjectBase>[] = [];
  private readonly terms: LeaderTerms;
  private elector?: LeaderElector;
  private current?: { controllers: OperatorController<ObjectBase>[]; informers: SharedInformerFactory };

  constructor(private readonly opts: ManagerOptions) {
    this.clients = new Clientset(new RESTClient(opts.connection.config, opts.name));
    this.log = opts.log ?? logger(opts.name);
    this.terms = new LeaderTerms(() => this.beginTerm(), this.log);
  }

  add<T extends ObjectBase>(r: Reconciler<T>): this {
    this.reconcilers.push(r as unknown as Reconciler<ObjectBase>);
    return this;
  }

  /** True while this replica acts (always, without leader election, once started). */
  get leading(): boolean {
    return this.terms.leading;
  }

  /** True when every reconciler's queue is empty and no reconcile runs (tests wait on it). */
  idle(): boolean {
    return !!this.current?.controllers.every((c) => c.queue.idle);
  }

  start(): void {
    const le = this.opts.leaderElection;
    if (!le) return this.terms.started();
    this.elector = new LeaderElector(this.clients.resource(resources.leases), {
      namespace: le.namespace ?? this.opts.connection.namespace,
      name: le.name ?? this.opts.name,
      identity: le.identity ?? `${hostname()}_${randomBytes(6).toString('hex')}`,
      leaseDurationMs: le.leaseDurationMs, renewDeadlineMs: le.renewDeadlineMs, retryPeriodMs: le.retryPeriodMs,
      clock: this.opts.clock, log: this.log,
      onStartedLeading: () => { this.log.info('leading: reconcilers started'); this.terms.started(); },
      onStoppedLeading: () => { this.log.warn('leadership lost: reconcilers stopped until it is regained'); void this.terms.stopped(); },
    });
    this.elector.start();
  }

  /** Stops the reconcilers, releases the Lease and closes the connection. */
  async stop(): Promise<void> {
    // Loops first, then the Lease: a successor must not act while this replica still does.
    await this.terms.stopped();
    await this.elector?.stop();
    this.clients.close();
    this.opts.connection.close();
  }

  private async beginTerm(): Promise<Term> {
    const clock = this.opts.clock ?? realClock;
    const informers = new SharedInformerFactory(this.clients, { log: this.log, resyncMs: this.opts.resyncMs ?? 10 * 60_000, clock });
    const ctx: ControllerContext = {
      clients: this.clients, informers, clock, log: this.log, config: defaultControllerConfig,
      recorder: (component) => new EventRecorder(this.clients.resource(resources.events), { component, host: hostname() }, clock, this.log),
    };
    const controllers = this.reconcilers.map((r) => new OperatorController(ctx, r));
    const term = { controllers, informers };
    this.current = term;
    let ended = false;
    informers.start();
    void informers.waitForCacheSync().then(() => {
      if (ended) return;
      this.log.info('caches synced, reconcilers running', { reconcilers: controllers.map((c) => c.name) });
      for (const c of controllers) {
        void c.run(this.opts.workers ?? 2).catch((e) => this.log.error('reconciler stopped', { controller: c.name, error: (e as Error).message }));
      }
    });
    return {
      stop: async () => {
        ended = true;
        if (this.current === term) this.current = undefined;
        await Promise.all(controllers.map((c) => c.stop()));
        await informers.stop();
      },
    };
  }
}
