// `capstan proxy`: the service proxy. Watches Services and EndpointSlices and programs this
// node's nftables (default) or iptables so ClusterIPs and NodePorts answer.
import { parseArgs } from 'node:util';
import { hostname } from 'node:os';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { clientsetFromKubeconfig, resources, SharedInformerFactory, type ClientsetAPI } from '../client/index.js';
import { createNftDriver, type NftDriver } from '../nft/index.js';
import { logger } from '../log/index.js';
import { Proxier } from '../proxy/proxier.js';
import { NftBackend } from '../proxy/nft/backend.js';
import { IptablesBackend } from '../proxy/iptables/backend.js';
import type { ProxyBackend } from '../proxy/backend.js';
import type { ProxyConfig } from '../proxy/model.js';
import { startHealthServer } from './health-server.js';
import { untilSignal } from './signals.js';
import { parseDuration } from '../util/index.js';
import { bindFallbacks, fallbacks, type Fallbacks } from '../log/fallback.js';

export interface ProxyHandle {
  proxier: Proxier;
  backend: ProxyBackend;
  metricsPort: number;
  healthzPort: number;
  stop(): Promise<void>;
}

const OPTIONS = {
  kubeconfig: { type: 'string' },
  'proxy-mode': { type: 'string', default: 'nftables' },
  'nft-driver': { type: 'string', default: 'auto' },
  // How partial syncs remove set elements: auto probes the kernel (expiry from Linux 6.12).
  'nft-retire': { type: 'string', default: 'auto' },
  'hostname-override': { type: 'string' },
  'cluster-cidr': { type: 'string' },
  'nodeport-addresses': { type: 'string' },
  'masquerade-all': { type: 'boolean', default: false },
  'min-sync-period': { type: 'string', default: '1s' },
  'sync-period': { type: 'string', default: '30s' },
  'metrics-bind-address': { type: 'string', default: '127.0.0.1:10249' },
  'healthz-bind-address': { type: 'string', default: '127.0.0.1:10256' },
  netns: { type: 'string' },
  cleanup: { type: 'boolean', default: false },
} as const;

function hostPort(text: string): { address: string; port: number } {
  const i = text.lastIndexOf(':');
  if (i < 0) throw new Error(`expected host:port, got "${text}"`);
  return { address: text.slice(0, i) || '0.0.0.0', port: Number(text.slice(i + 1)) };
}

function nftDriver(choice: string, fallback: Fallbacks): NftDriver {
  if (choice === 'addon' || choice === 'nft') return createNftDriver(choice);
  if (choice !== 'auto') throw new Error(`--nft-driver must be auto, addon or nft`);
  try {
    return createNftDriver('addon');
  } catch (e) {
    fallback('nft-addon-unavailable', { error: e }); // no addon built: the same ruleset through `nft -f`
    return createNftDriver('nft');
  }
}

export function backendFor(values: { 'proxy-mode'?: string; 'nft-driver'?: string; 'nft-retire'?: string }, cfg: ProxyConfig, netns: string | null, fallback: Fallbacks = fallbacks('proxy')): ProxyBackend {
  const mode = values['proxy-mode'] ?? 'nftables';
  if (mode === 'iptables') return new IptablesBackend(cfg, netns);
  if (mode !== 'nftables') throw new Error(`--proxy-mode must be nftables or iptables`);
  const retire = values['nft-retire'] ?? 'auto';
  if (retire !== 'auto' && retire !== 'expiry' && retire !== 'delete') throw new Error('--nft-retire must be auto, expiry or delete');
  return new NftBackend(nftDriver(values['nft-driver'] ?? 'auto', fallback), cfg, netns, undefined, { fallback, ...(retire === 'auto' ? {} : { retire }) });
}

/** Starts the proxy; `clients` replaces --kubeconfig (tests run it against an in-process server). */
export async function startProxy(argv: string[], clients?: ClientsetAPI & { close?(): void }): Promise<ProxyHandle> {
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  const log = logger('proxy');
  const cfg: ProxyConfig = {
    nodeName: values['hostname-override'] ?? hostname(),
    ...(values['cluster-cidr'] ? { clusterCIDR: values['cluster-cidr'] } : {}),
    masqueradeAll: values['masquerade-all'],
    ...(values['nodeport-addresses'] ? { nodePortAddresses: values['nodeport-addresses'].split(',').map((s) => s.trim()).filter(Boolean) } : {}),
  };
  const netns = values.netns ?? null;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  bindFallbacks('proxy', registry, log);
  bindFallbacks('nft', registry, log);
  const backend = backendFor(values, cfg, netns, fallbacks('proxy', log, registry));
  if (!clients) {
    if (!values.kubeconfig) throw new Error('--kubeconfig is required');
    clients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-proxy');
  }
  const informers = new SharedInformerFactory(clients, { log, resyncMs: 0, registry });
  const proxier = new Proxier({
    services: informers.informerFor(resources.services),
    slices: informers.informerFor(resources.endpointslices),
    backend, config: cfg, log, registry, netns, conntrack: true,
    minSyncPeriodMs: parseDuration(values['min-sync-period']),
    syncPeriodMs: parseDuration(values['sync-period']),
  });
  informers.start();
  proxier.start();
  const m = hostPort(values['metrics-bind-address']);
  const h = hostPort(values['healthz-bind-address']);
  const metrics = await startHealthServer({ ...m, registry, ready: () => proxier.healthy() });
  const healthRegistry = new Registry();
  const healthz = await startHealthServer({ ...h, registry: healthRegistry, ready: () => proxier.healthy() });
  log.info('proxy started', { mode: backend.mode, node: cfg.nodeName, netns });
  return {
    proxier, backend, metricsPort: metrics.port, healthzPort: healthz.port,
    async stop() {
      // The rules stay: established and new connections keep working until the next proxy takes over.
      await proxier.stop();
      await informers.stop();
      metrics.server.close();
      healthz.server.close();
      clients?.close?.();
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  if (values.cleanup) {
    const cfg: ProxyConfig = { nodeName: values['hostname-override'] ?? hostname() };
    await backendFor(values, cfg, values.netns ?? null).cleanup();
    return 0;
  }
  const p = await startProxy(argv);
  process.stdout.write(`capstan proxy running (${p.backend.mode}; metrics on :${p.metricsPort}, healthz on :${p.healthzPort})\n`);
  await untilSignal();
  await p.stop();
  return 0;
}
