// `capstan kubelet`: the node agent. Talks to the API server with --kubeconfig and to a CRI
// runtime (containerd) on --container-runtime-endpoint; registers --hostname-override (the
// host name by default) and runs the pods bound to it.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { dirname, resolve } from 'node:path';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { delegatedAuth, startKubeletServer, type KubeletServer } from '../kubelet/server/index.js';
import { CRIClient, type CRIMethod } from '../../cri/index.js';
import { clientsetFromKubeconfig, nodeKubeconfigPath, realClock, type Clientset } from '../client/index.js';
import { clientCredentials, renewComponentCertificates, servingCertificateManager, type CertificateManager } from '../kubelet/certificate/index.js';
import { Kubelet } from '../kubelet/index.js';
import { BuildOnPullCRIClient } from '../kubelet/images/index.js';
import { summaryProvider } from '../kubelet/stats/index.js';
import { parseSoftThresholds, parseThresholds } from '../kubelet/eviction.js';
import { logger } from '../log/index.js';
import { bindFallbacks } from '../log/fallback.js';
import { parseDuration } from '../util/index.js';
import { untilSignal } from './signals.js';
import { startHealthServer } from './health-server.js';

export interface KubeletHandle {
  kubelet: Kubelet;
  runtime: CRIClient;
  stop(): Promise<void>;
}

export interface KubeletExtras {
  /** Called after every CRI call (benchmarks, metrics). */
  observe?: (method: CRIMethod, ms: number, code: number) => void;
  clients?: Clientset;
  /** Built-in images (src/kubelet/images) to build and import when a pod first names one, rather than pull. */
  buildOnPull?: string[];
}

export const kubeletFlags = {
  kubeconfig: { type: 'string' },
  'hostname-override': { type: 'string' },
  'container-runtime-endpoint': { type: 'string', default: 'unix:///run/containerd/containerd.sock' },
  'root-dir': { type: 'string', default: '/var/lib/kubelet' },
  'pod-log-dir': { type: 'string' },
  'cluster-dns': { type: 'string', default: '10.96.0.10' },
  'cluster-domain': { type: 'string', default: 'cluster.local' },
  'resolv-conf': { type: 'string', default: '/etc/resolv.conf' },
  'node-ip': { type: 'string' },
  'cgroup-root': { type: 'string', default: '/' },
  'cni-conf-dir': { type: 'string' },
  'max-pods': { type: 'string', default: '110' },
  'sync-frequency': { type: 'string', default: '10s' },
  'pod-manifest-path': { type: 'string' },
  'eviction-hard': { type: 'string', default: 'memory.available<100Mi,nodefs.available<10%,imagefs.available<15%,nodefs.inodesFree<5%' },
  'eviction-soft': { type: 'string', default: '' },
  'eviction-soft-grace-period': { type: 'string', default: '' },
  'eviction-max-pod-grace-period': { type: 'string', default: '0' },
  // capstan's: upstream checks every 10 s; tests shorten it.
  'eviction-monitoring-period': { type: 'string', default: '10s' },
  // capstan's: container exits from containerd's task events (false: only resyncs see them).
  'container-events': { type: 'string', default: 'true' },
  'file-check-frequency': { type: 'string', default: '20s' },
  // Not an upstream flag (upstream fixes it at 24 h): a token older than this is refreshed,
  // so tests can watch a refresh without waiting 80 % of a 10-minute token.
  'service-account-token-max-ttl': { type: 'string', default: '24h' },
  'node-status-update-frequency': { type: 'string', default: '10s' },
  port: { type: 'string', default: '10250' },
  // Plain-HTTP /healthz and /metrics on loopback (upstream's healthz endpoint; capstan's other
  // components serve /metrics beside it). Off by default, unlike upstream's 10248: several
  // kubelets share a network namespace in the lab and in tests.
  'healthz-port': { type: 'string', default: '0' },
  'healthz-bind-address': { type: 'string', default: '127.0.0.1' },
  address: { type: 'string', default: '0.0.0.0' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'client-ca-file': { type: 'string' },
  // Certificates from the cluster: a bootstrap token's kubeconfig asks for the client
  // certificate; --rotate-* keep them renewed (src/kubelet/certificate).
  'bootstrap-kubeconfig': { type: 'string' },
  'cert-dir': { type: 'string' },
  'rotate-certificates': { type: 'string', default: 'false' },
  'rotate-server-certificates': { type: 'string', default: 'false' },
  // capstan: also keep renewed the service proxy's, network agent's and DNS's certificates the
  // node requested for them (in --cert-dir, their kubeconfigs beside --kubeconfig), as an
  // installed node's units have no other long-lived process holding the node's identity.
  'rotate-component-certificates': { type: 'string', default: 'false' },
  'image-gc-high-threshold': { type: 'string', default: '85' },
  'image-gc-low-threshold': { type: 'string', default: '80' },
  'minimum-image-ttl-duration': { type: 'string', default: '2m' },
  'pod-infra-container-image': { type: 'string' },
  // Graceful node shutdown (KubeletConfiguration shutdownGracePeriod, shutdownGracePeriodCriticalPods):
  // with a period set, the SIGTERM the kubelet gets is the node's shutdown (src/kubelet/node-shutdown.ts).
  'shutdown-grace-period': { type: 'string', default: '0s' },
  'shutdown-grace-period-critical-pods': { type: 'string', default: '0s' },
} as const;

export async function startKubelet(argv: string[], extras: KubeletExtras = {}): Promise<KubeletHandle> {
  const { values } = parseArgs({ args: argv, strict: true, options: kubeletFlags });
  if (!values.kubeconfig && !extras.clients) throw new Error('--kubeconfig is required');
  const nodeName = (values['hostname-override'] ?? hostname()).toLowerCase();
  const rootDir = resolve(values['root-dir']);
  mkdirSync(rootDir, { recursive: true });
  const log = logger('kubelet', { node: nodeName });
  const certDir = resolve(values['cert-dir'] ?? `${rootDir}/pki`);
  // Credentials first: a bootstrap that fails leaves nothing else open.
  const credentials = !extras.clients && (values['bootstrap-kubeconfig'] || values['rotate-certificates'] === 'true')
    ? await clientCredentials({ nodeName, kubeconfig: values.kubeconfig!, bootstrapKubeconfig: values['bootstrap-kubeconfig'], certDir, rotate: values['rotate-certificates'] === 'true', clock: realClock, log })
    : undefined;
  const socket = values['container-runtime-endpoint'];
  const runtime = extras.buildOnPull?.length ? new BuildOnPullCRIClient({ socket, observe: extras.observe }, extras.buildOnPull) : new CRIClient({ socket, observe: extras.observe });
  // Ready must turn False within a heartbeat when the runtime is gone, not after 10 s.
  const healthRuntime = new CRIClient({ socket, timeouts: { Status: 2_000, Version: 2_000 } });
  const clients = extras.clients ?? credentials?.clients ?? clientsetFromKubeconfig(values.kubeconfig!, 'capstan-kubelet');
  const components = values['rotate-component-certificates'] === 'true' && values.kubeconfig
    ? renewComponentCertificates({
      kubeletKubeconfig: resolve(values.kubeconfig), certDir, components: ['proxy', 'networkAgent', 'dns'],
      kubeconfigPath: (c) => nodeKubeconfigPath(dirname(resolve(values.kubeconfig!)), c), clock: realClock, log,
    })
    : undefined;
  const closeClients = () => { components?.stop(); if (credentials) credentials.stop(); else if (!extras.clients) clients.close(); };
  let serving: CertificateManager | undefined;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  bindFallbacks('kubelet', registry, log);
  const kubelet = new Kubelet({
    nodeName, clients, runtime, healthRuntime, rootDir, log,
    logRoot: values['pod-log-dir'] ? resolve(values['pod-log-dir']) : undefined,
    clusterDNS: values['cluster-dns'].split(',').filter(Boolean),
    clusterDomain: values['cluster-domain'], resolvConf: values['resolv-conf'],
    nodeIP: values['node-ip'], cgroupRoot: values['cgroup-root'],
    cniConfDir: values['cni-conf-dir'], maxPods: Number(values['max-pods']),
    resyncMs: parseDuration(values['sync-frequency']), nodeStatusIntervalMs: parseDuration(values['node-status-update-frequency']),
    kubeletPort: Number(values.port), tokenMaxTTLMs: parseDuration(values['service-account-token-max-ttl']),
    imageGC: {
      highThresholdPercent: Number(values['image-gc-high-threshold']), lowThresholdPercent: Number(values['image-gc-low-threshold']),
      minAgeMs: parseDuration(values['minimum-image-ttl-duration']),
    },
    podInfraImage: values['pod-infra-container-image'],
    evictionHard: parseThresholds(values['eviction-hard']),
    evictionSoft: parseSoftThresholds(values['eviction-soft'], values['eviction-soft-grace-period'], parseDuration),
    evictionMaxPodGracePeriodSeconds: Number(values['eviction-max-pod-grace-period']),
    evictionIntervalMs: parseDuration(values['eviction-monitoring-period']),
    eventsSocket: values['container-events'] === 'true' ? socket : undefined,
    podManifestPath: values['pod-manifest-path'] ? resolve(values['pod-manifest-path']) : undefined,
    fileCheckFrequencyMs: parseDuration(values['file-check-frequency']),
    shutdownGracePeriodSeconds: Math.floor(parseDuration(values['shutdown-grace-period']) / 1000),
    shutdownGracePeriodCriticalPodsSeconds: Math.floor(parseDuration(values['shutdown-grace-period-critical-pods']) / 1000),
  });
  let server: KubeletServer | undefined;
  let health: Server | undefined;
  try {
    await kubelet.start();
    if (Number(values['healthz-port']) > 0) {
      ({ server: health } = await startHealthServer({
        address: values['healthz-bind-address'], port: Number(values['healthz-port']),
        registry: () => Registry.merge([registry, kubelet.registry]), ready: () => true,
      }));
    }
    // Logs and exec for the API server: only with a serving certificate and the CA that signs
    // the API server's kubelet client certificate.
    let tls: { certPem: string; keyPem: string } | undefined;
    if (values['tls-cert-file'] && values['tls-private-key-file']) {
      tls = { certPem: readFileSync(values['tls-cert-file'], 'utf8'), keyPem: readFileSync(values['tls-private-key-file'], 'utf8') };
    } else if (values['rotate-server-certificates'] === 'true') {
      // After registration: the request names the addresses the Node reports.
      serving = servingCertificateManager({ nodeName, certDir, clients, clock: realClock, log, onRotate: (pair) => server?.setCertificate(pair) });
      tls = await serving.start();
    }
    if (tls && values['client-ca-file']) {
      server = await startKubeletServer({
        cri: runtime, nodeName, address: values.address, port: Number(values.port), logRoot: kubelet.logRoot, log,
        tls, clientCA: readFileSync(values['client-ca-file'], 'utf8'), auth: delegatedAuth(clients, nodeName),
        stats: summaryProvider({ cri: runtime, nodeName, rootDir }),
      });
    }
  } catch (e) {
    health?.close();
    await server?.stop();
    await kubelet.stop();
    serving?.stop();
    runtime.close();
    healthRuntime.close();
    closeClients();
    throw e;
  }
  return {
    kubelet, runtime,
    stop: async () => {
      health?.close();
      await server?.stop();
      await kubelet.stop();
      serving?.stop();
      runtime.close();
      healthRuntime.close();
      closeClients();
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const k = await startKubelet(argv);
  process.stdout.write(`capstan kubelet running: node ${k.kubelet.nodeName}\n`);
  // SIGTERM with a shutdown grace period: the node is going down, its pods stop first.
  // Without one (and on SIGINT) pods keep running, for the next kubelet to adopt.
  if (await untilSignal() === 'SIGTERM') await k.kubelet.shutdownNode();
  await k.stop();
  return 0;
}
