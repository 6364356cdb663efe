// `capstan controller-manager`: the built-in controllers behind leader election, talking to
// the API server over HTTPS like any client.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { clientsetFromKubeconfig, loadKubeconfig, EventRecorder, LeaderElector, realClock, resources, SharedInformerFactory, type ClientsetAPI, stripManagedFields } from '../client/index.js';
import { controllers, defaultControllerConfig, type Controller, type ControllerContext } from '../controllers/index.js';
import { logger } from '../log/index.js';
import { startHealthServer } from './health-server.js';
import { LeaderTerms, type Term } from '../client/leader-terms.js';
import { untilSignal } from './signals.js';
import { parseDuration } from '../util/index.js';

export interface ControllerManagerHandle {
  stop(): Promise<void>;
  isLeader(): boolean;
  healthPort: number;
}

export async function startControllerManager(argv: string[]): Promise<ControllerManagerHandle> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      kubeconfig: { type: 'string' },
      controllers: { type: 'string', default: '*' },
      'leader-elect': { type: 'string', default: 'true' },
      'leader-elect-lease-duration': { type: 'string', default: '15s' },
      'leader-elect-renew-deadline': { type: 'string', default: '10s' },
      'leader-elect-retry-period': { type: 'string', default: '2s' },
      'cluster-cidr': { type: 'string', default: defaultControllerConfig.clusterCIDR },
      'node-cidr-mask-size': { type: 'string', default: String(defaultControllerConfig.nodeCIDRMaskSize) },
      'node-monitor-grace-period': { type: 'string', default: '40s' },
      'pod-eviction-timeout': { type: 'string', default: '5m' },
      'concurrent-workers': { type: 'string', default: String(defaultControllerConfig.workers) },
      'max-endpoints-per-slice': { type: 'string', default: String(defaultControllerConfig.maxEndpointsPerSlice) },
      'terminated-pod-gc-threshold': { type: 'string', default: String(defaultControllerConfig.terminatedPodGCThreshold) },
      // Not an upstream flag (upstream fixes it at 40 s): lets tests run pod GC of orphans quickly.
      'pod-gc-quarantine-period': { type: 'string', default: '40s' },
      'cluster-signing-cert-file': { type: 'string' },
      'cluster-signing-key-file': { type: 'string' },
      'cluster-signing-duration': { type: 'string', default: '8760h' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'secure-port': { type: 'string', default: '10257' },
      'service-account-private-key-file': { type: 'string' },
      'root-ca-file': { type: 'string' },
      'horizontal-pod-autoscaler-sync-period': { type: 'string', default: '15s' },
      'horizontal-pod-autoscaler-downscale-stabilization': { type: 'string', default: '5m' },
    },
  });
  if (!values.kubeconfig) throw new Error('--kubeconfig is required');
  const log = logger('controller-manager');
  const clients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-controller-manager');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const identity = `${hostname()}_${randomBytes(4).toString('hex')}`;
  const config: ControllerContext['config'] = {
    clusterCIDR: values['cluster-cidr'],
    nodeCIDRMaskSize: Number(values['node-cidr-mask-size']),
    nodeMonitorGracePeriodMs: parseDuration(values['node-monitor-grace-period']),
    podEvictionTimeoutMs: parseDuration(values['pod-eviction-timeout']),
    workers: Number(values['concurrent-workers']),
    maxEndpointsPerSlice: Number(values['max-endpoints-per-slice']),
    terminatedPodGCThreshold: Number(values['terminated-pod-gc-threshold']),
    podGCQuarantineMs: parseDuration(values['pod-gc-quarantine-period']),
    clusterSigningCertFile: values['cluster-signing-cert-file'],
    clusterSigningKeyFile: values['cluster-signing-key-file'],
    clusterSigningDurationMs: parseDuration(values['cluster-signing-duration']),
    serviceAccountPrivateKeyPem: values['service-account-private-key-file'] ? readFileSync(values['service-account-private-key-file'], 'utf8') : undefined,
    horizontalPodAutoscalerSyncPeriodMs: parseDuration(values['horizontal-pod-autoscaler-sync-period']),
    horizontalPodAutoscalerDownscaleStabilizationMs: parseDuration(values['horizontal-pod-autoscaler-downscale-stabilization']),
    rootCAPem: values['root-ca-file'] ? readFileSync(values['root-ca-file'], 'utf8') : loadKubeconfig(values.kubeconfig).caPem,
  };
  if (!Number.isInteger(config.terminatedPodGCThreshold)) throw new Error(`--terminated-pod-gc-threshold must be an integer, not "${values['terminated-pod-gc-threshold']}"`);
  const wanted = values.controllers === '*' ? Object.keys(controllers) : values.controllers.split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of wanted) if (!controllers[name]) throw new Error(`unknown controller "${name}" (known: ${Object.keys(controllers).join(', ')})`);

  // Each term of leadership gets fresh informers and controllers: the last term's queues and
  // watches are shut down, so a new term starts from a relist, like a restarted process.
  const beginTerm = async (): Promise<Term> => {
    const informers = new SharedInformerFactory(clients, { log, resyncMs: 10 * 60_000, registry, transform: stripManagedFields });
    const ctx: ControllerContext = {
      clients, informers, clock: realClock, log, metrics: registry, config,
      recorder: (component) => new EventRecorder(clients.resource(resources.events), { component, host: hostname() }, realClock, log),
    };
    const running: Controller[] = [];
    for (const name of wanted) running.push(await (await controllers[name]())(ctx));
    let ended = false;
    informers.start();
    void informers.waitForCacheSync().then(() => {
      if (ended) return;
      log.info('caches synced, controllers running', { controllers: wanted });
      for (const c of running) void c.run(config.workers).catch((e) => log.error('controller stopped', { controller: c.name, error: (e as Error).message }));
    });
    return {
      async stop() {
        ended = true;
        await Promise.all(running.map((c) => c.stop()));
        await informers.stop();
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
    electionClients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-controller-manager/leader-election', { maxSockets: 1 });
    elector = new LeaderElector(electionClients.resource(resources.leases), {
      namespace: 'kube-system', name: 'kube-controller-manager', identity, log,
      leaseDurationMs: parseDuration(values['leader-elect-lease-duration']),
      renewDeadlineMs: parseDuration(values['leader-elect-renew-deadline']),
      retryPeriodMs: parseDuration(values['leader-elect-retry-period']),
      onStartedLeading: () => terms.started(),
      // A controller-manager that lost its lease stops acting at once, and campaigns again.
      onStoppedLeading: () => { log.warn('leadership lost, controllers stopped until it is regained'); void terms.stopped(); },
    });
    elector.start();
  } else {
    terms.started();
  }
  const health = await startHealthServer({ address: values['bind-address'], port: Number(values['secure-port']), registry, ready: () => terms.leading });
  return {
    healthPort: health.port,
    isLeader: () => terms.leading,
    async stop() {
      await elector?.stop();
      electionClients?.close();
      await terms.stopped();
      health.server.close();
      clients.close();
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const cm = await startControllerManager(argv);
  process.stdout.write(`capstan controller-manager running (healthz on :${cm.healthPort})\n`);
  await untilSignal();
  await cm.stop();
  return 0;
}
