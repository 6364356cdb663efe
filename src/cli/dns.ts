// `capstan dns`: the node's cluster DNS server (NodeLocal DNSCache style). Binds the
// link-local address and the cluster DNS Service IP on `lo`, answers the cluster domain
// from informers, forwards the rest to the node's resolvers, and publishes itself as the
// endpoints of the kube-dns Service so the service proxy sends the Service IP's traffic here.
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { clientsetFromKubeconfig, resources } from '../client/index.js';
import {
  KubeDNSPublisher, ListenInterface, concernsPublisher, parseUpstream, readResolvConf, startDNS,
  type DNSHandle, type ListenAddress, type Upstream,
} from '../dns/index.js';
import { logger } from '../log/index.js';
import { createNetlink } from '../netlink/index.js';
import { parseDuration } from '../util/index.js';
import { startHealthServer } from './health-server.js';
import { untilSignal } from './signals.js';
import { bindFallbacks, fallbacks } from '../log/fallback.js';

export interface DNSCommandHandle {
  dns: DNSHandle;
  healthPort?: number;
  listen: ListenAddress[];
  stop(): Promise<void>;
}

const truthy = (v: string | undefined) => v === 'true' || v === '1' || v === '';

export async function startDNSCommand(argv: string[]): Promise<DNSCommandHandle> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      kubeconfig: { type: 'string' },
      'cluster-domain': { type: 'string', default: 'cluster.local' },
      listen: { type: 'string', default: '169.254.20.10:53,10.96.0.10:53' },
      upstream: { type: 'string' },
      'resolv-conf': { type: 'string', default: '/etc/resolv.conf' },
      'upstream-timeout': { type: 'string', default: '2s' },
      'cluster-dns': { type: 'string', default: '10.96.0.10' },
      'node-name': { type: 'string' },
      'advertise-address': { type: 'string' },
      publish: { type: 'string', default: 'true' },
      'setup-interface': { type: 'string', default: 'true' },
      'interface-name': { type: 'string', default: 'lo' },
      ttl: { type: 'string', default: '30' },
      pods: { type: 'string', default: 'insecure' },
      'cache-size': { type: 'string', default: '10000' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'health-port': { type: 'string', default: '9153' },
    },
  });
  if (!values.kubeconfig) throw new Error('--kubeconfig is required');
  const pods = values.pods as 'insecure' | 'verified' | 'disabled';
  if (!['insecure', 'verified', 'disabled'].includes(pods)) throw new Error(`--pods must be insecure, verified or disabled, not "${values.pods}"`);
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl < 0) throw new Error(`invalid --ttl ${values.ttl}`);
  const clusterDNS = values['cluster-dns'];
  if (!isIP(clusterDNS)) throw new Error(`invalid --cluster-dns ${clusterDNS}`);
  const nodeName = values['node-name'] ?? hostname().toLowerCase();
  const log = logger('dns', { node: nodeName });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  bindFallbacks('dns', registry, log);
  const fallback = fallbacks('dns', log, registry);
  const clients = clientsetFromKubeconfig(values.kubeconfig, 'capstan-dns');

  const listen: ListenAddress[] = values.listen.split(',').filter(Boolean).map((s) => {
    const a = parseUpstream(s.trim());
    if (!isIP(a.host)) throw new Error(`--listen wants IP:port, not "${s}"`);
    return a;
  });
  if (listen.length === 0) throw new Error('--listen is empty');

  // The address the service proxy sends the Service IP's traffic to: the node's own.
  let advertise = values['advertise-address'];
  const publish = truthy(values.publish);
  const nodeIP = async (): Promise<string | undefined> => {
    try {
      const node = await clients.resource(resources.nodes).get(undefined, nodeName);
      return (node.status?.addresses ?? []).find((a: { type: string }) => a.type === 'InternalIP')?.address;
    } catch (e) {
      fallback('node-address-lookup-failed', { error: e, node: nodeName });
      return undefined;
    }
  };
  if (publish && !advertise) advertise = await nodeIP();
  if (advertise && !isIP(advertise)) throw new Error(`invalid --advertise-address ${advertise}`);
  if (advertise && !listen.some((l) => l.host === advertise)) listen.push({ host: advertise, port: listen[0].port });

  const own = new Set([...listen.map((l) => l.host), clusterDNS]);
  const upstreams: Upstream[] = values.upstream !== undefined
    ? values.upstream.split(',').filter(Boolean).map((s) => parseUpstream(s.trim())).filter((u) => !own.has(u.host))
    : readResolvConf(values['resolv-conf'], own);

  const iface = truthy(values['setup-interface']) ? new ListenInterface(createNetlink('addon'), values['interface-name']) : undefined;
  await iface?.ensure(listen.map((l) => l.host).filter((h) => h !== advertise));

  let dns: DNSHandle;
  try {
    dns = await startDNS({
      clients, listen, upstreams, log, registry,
      domain: values['cluster-domain'], ttl, pods, clusterDNS,
      upstreamTimeoutMs: parseDuration(values['upstream-timeout']),
      cacheSize: Number(values['cache-size']),
    });
  } catch (err) {
    await iface?.teardown();
    clients.close();
    throw err;
  }

  let publisher: KubeDNSPublisher | undefined;
  let waitTimer: NodeJS.Timeout | undefined;
  const startPublishing = (address: string) => {
    const port = dns.server.bound.udp.find((b) => b.host === address)!.port;
    publisher = new KubeDNSPublisher({ clients, serviceIP: clusterDNS, nodeName, address, port, log });
    const kick = (o: { metadata: { namespace?: string; name?: string } }) => { if (concernsPublisher(o as never, nodeName)) publisher!.kick(); };
    for (const r of [resources.services, resources.endpointslices]) {
      dns.informers.informerFor(r).addEventHandler({ onUpdate: (_, o) => kick(o), onDelete: kick });
    }
    publisher.start();
    log.info('publishing kube-dns endpoints', { address, port });
  };
  if (publish && advertise) startPublishing(advertise);
  else if (publish) {
    // The kubelet may register the Node after this starts: look for its InternalIP until it is there.
    log.warn('no --advertise-address and no InternalIP on the Node yet: kube-dns endpoints wait for it');
    const retry = async () => {
      const ip = await nodeIP();
      if (!ip) { waitTimer = setTimeout(() => void retry(), 10_000); return; }
      try {
        if (!dns.server.bound.udp.some((b) => b.host === ip)) await dns.server.listen([{ host: ip, port: listen[0].port }]);
        startPublishing(ip);
      } catch (err) {
        log.warn('cannot listen on the node address', { address: ip, error: (err as Error).message });
        waitTimer = setTimeout(() => void retry(), 10_000);
      }
    };
    waitTimer = setTimeout(() => void retry(), 10_000);
  }

  const port = Number(values['health-port']);
  const health = port >= 0 ? await startHealthServer({ address: values['bind-address'], port, registry, ready: () => dns.ready() }) : undefined;
  return {
    dns, healthPort: health?.port, listen: dns.server.bound.udp,
    async stop() {
      clearTimeout(waitTimer);
      await publisher?.stop();
      await dns.stop();
      await iface?.teardown();
      health?.server.close();
      clients.close();
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const h = await startDNSCommand(argv);
  const where = h.listen.map((l) => `${l.host}:${l.port}`).join(',');
  process.stdout.write(`capstan dns serving on ${where}${h.healthPort !== undefined ? ` (healthz on :${h.healthPort})` : ''}\n`);
  await untilSignal();
  await h.stop();
  return 0;
}
