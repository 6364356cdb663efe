// `capstan scheduler`: watches pending pods and nodes through the API server and binds each
// pod to a node, behind leader election on the Lease kube-system/kube-scheduler. Informers
// start before the election, so a standby takes over with warm caches; a lost lease stops the
// scheduling loop and the scheduler campaigns again.
import { parseArgs } from 'node:util';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { clientsetFromKubeconfig, EventRecorder, LeaderElector, realClock, resources, SharedInformerFactory, type ClientsetAPI, stripManagedFields } from '../client/index.js';
import { Scheduler } from '../scheduler/index.js';
import { logger } from '../log/index.js';
import { startHealthServer } from './health-server.js';
import { LeaderTerms, type Term } from '../client/leader-terms.js';
import { untilSignal } from './signals.js';
import { parseDuration } from '../util/index.js';

export interface SchedulerHandle {
  scheduler: Scheduler;
  healthPort: number;
  identity: string;
  isLeader(): boolean;
  stop(): Promise<void>;
}

export async function startScheduler(argv: string[]): Promise<SchedulerHandle> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      kubeconfig: { type: 'string' },
      'leader-elect': { type: 'string', default: 'true' },
      'leader-elect-lease-duration': { type: 'string', default: '15s' },
      'leader-elect-renew-deadline': { type: 'string', default: '10s' },
      'leader-elect-retry-period': { type: 'string', default: '2s' },
      'scheduler-name': { type: 'string', default: 'default-scheduler' },
      'percentage-of-nodes-to-score': { type: 'string', default: '0' },
      'bind-concurrency': { type: 'string', default: '32' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'secure-port': { type: 'string', default: '10259' },
    },
  });
  if (!values.kubeconfig) throw new Error('--kubeconfig is required');
  const log = logger('scheduler');
  const clients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-scheduler');
  // Events travel on their own connections so a burst of them never queues behind binds.
  const eventClients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-scheduler');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const identity = `${hostname()}_${randomBytes(4).toString('hex')}`;
  const recorder = new EventRecorder(eventClients.resource(resources.events), { component: 'default-scheduler', host: identity }, realClock, log);
  // A standby keeps informers running so it takes over with warm caches. Each term of
  // leadership schedules with the standby's informers and queue; when it ends they are shut
  // down and a fresh standby starts, so the next term begins from a relist.
  const standby = () => {
    const informers = new SharedInformerFactory(clients, { log, resyncMs: 0, registry, transform: stripManagedFields });
    const scheduler = new Scheduler({
      clients, informers, log, recorder, registry: new Registry(),
      schedulerName: values['scheduler-name'],
      percentageOfNodesToScore: Number(values['percentage-of-nodes-to-score']),
      bindConcurrency: Number(values['bind-concurrency']),
    });
    informers.start();
    const s = { informers, scheduler, synced: false };
    void informers.waitForCacheSync().then(() => { s.synced = true; });
    return s;
  };
  let current = standby();
  let stopping = false;
  const beginTerm = async (): Promise<Term> => {
    const { informers, scheduler } = current;
    let ended = false;
    void informers.waitForCacheSync().then(() => {
      if (ended) return;
      log.info('caches synced, scheduling', { identity });
      void scheduler.run().catch((e) => log.error('scheduling loop stopped', { error: (e as Error).message }));
    });
    return {
      async stop() {
        ended = true;
        await scheduler.stop();
        await informers.stop();
        if (!stopping) current = standby();
      },
    };
  };
  const terms = new LeaderTerms(beginTerm, log);

  let elector: LeaderElector | undefined;
  let electionClients: ClientsetAPI | undefined;
  if (values['leader-elect'] === 'true') {
    // Its own connection, as upstream's leader-election client: behind the component's own
    // requests in one pool (a ReplicaSet's burst of 500 creates) a renewal missed the renew
    // deadline, and every lost term restarts the informers with full relists.
    electionClients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-scheduler/leader-election', { maxSockets: 1 });
    elector = new LeaderElector(electionClients.resource(resources.leases), {
      namespace: 'kube-system', name: 'kube-scheduler', identity, log,
      leaseDurationMs: parseDuration(values['leader-elect-lease-duration']),
      renewDeadlineMs: parseDuration(values['leader-elect-renew-deadline']),
      retryPeriodMs: parseDuration(values['leader-elect-retry-period']),
      onStartedLeading: () => terms.started(),
      // As kube-scheduler, a scheduler that lost its lease binds no other pod; it campaigns again.
      onStoppedLeading: () => { if (!stopping) log.warn('leadership lost, scheduling stopped until it is regained'); void terms.stopped(); },
    });
    elector.start();
  } else {
    terms.started();
  }
  const health = await startHealthServer({ address: values['bind-address'], port: Number(values['secure-port']), registry: () => Registry.merge([registry, current.scheduler.registry]), ready: () => current.synced });
  return {
    get scheduler() { return current.scheduler; },
    identity, healthPort: health.port,
    isLeader: () => terms.leading,
    async stop() {
      stopping = true;
      await elector?.stop();
      electionClients?.close();
      await terms.stopped();
      await current.scheduler.stop();
      await current.informers.stop();
      health.server.close();
      clients.close();
      eventClients.close();
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const s = await startScheduler(argv);
  process.stdout.write(`capstan scheduler running (healthz on :${s.healthPort})\n`);
  await untilSignal();
  await s.stop();
  return 0;
}
