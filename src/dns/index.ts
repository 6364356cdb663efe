// Cluster DNS: answers for the cluster domain from Services, EndpointSlices and Pods seen
// through informers, forwards everything else to the node's upstream resolvers.
import type { Registry } from 'prom-client';
import { SharedInformerFactory, type ClientsetAPI } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { Forwarder, type Upstream } from './forward.js';
import { DNSMetrics } from './metrics.js';
import { normalize } from './names.js';
import { PrebuiltAnswers } from './prebuilt.js';
import { Resolver, type ResolverOptions } from './resolver.js';
import { DNSServer, type ListenAddress } from './server.js';
import { ZoneSources } from './sources.js';
import { Zone, type RR } from './zone.js';

export { DNSServer, type ListenAddress } from './server.js';
export { Zone, type RR } from './zone.js';
export { Resolver } from './resolver.js';
export { Forwarder, parseUpstream, readResolvConf, upstreamsFromResolvConf, type Upstream } from './forward.js';
export { KubeDNSPublisher, concernsPublisher, SERVICE_NAME, SERVICE_NAMESPACE, MANAGED_BY, sliceName } from './publish.js';
export { ListenInterface } from './interface.js';

export interface DNSOptions {
  clients: ClientsetAPI;
  listen: ListenAddress[];
  upstreams: Upstream[];
  log: Logger;
  registry: Registry;
  domain?: string;
  ttl?: number;
  pods?: ResolverOptions['pods'];
  upstreamTimeoutMs?: number;
  /** The cluster DNS Service IP: the address of the zone's NS (`ns.dns.<zone>`). */
  clusterDNS?: string;
  cacheSize?: number;
  /** Who serves UDP (DNSServerOptions.udp): the addon's thread by default when it has one. */
  udp?: 'native' | 'dgram';
  /** Share an informer factory with other parts of the process; default a new one. */
  informers?: SharedInformerFactory;
}

export interface DNSHandle {
  server: DNSServer;
  zone: Zone;
  sources: ZoneSources;
  informers: SharedInformerFactory;
  forwarder: Forwarder;
  ready(): boolean;
  stop(): Promise<void>;
}

export async function startDNS(opts: DNSOptions): Promise<DNSHandle> {
  const domain = normalize(opts.domain ?? 'cluster.local');
  const ttl = opts.ttl ?? 30;
  const pods = opts.pods ?? 'insecure';
  const zone = new Zone(domain);
  if (opts.clusterDNS) {
    const ns = `ns.dns.${domain}`;
    const glue: RR[] = [{ name: domain, type: 'NS', class: 'IN', ttl, data: ns }];
    glue.push({ name: ns, type: opts.clusterDNS.includes(':') ? 'AAAA' : 'A', class: 'IN', ttl, data: opts.clusterDNS });
    zone.set('static/ns', glue);
  }
  const ownFactory = !opts.informers;
  const informers = opts.informers ?? new SharedInformerFactory(opts.clients, { log: opts.log, registry: opts.registry });
  const sources = new ZoneSources(informers, zone, { domain, ttl, podRecords: pods !== 'disabled' });
  const cache = new PrebuiltAnswers(opts.cacheSize ?? 10_000);
  const metrics = new DNSMetrics(opts.registry, () => cache.size, () => zone.size);
  const forwarder = new Forwarder({ upstreams: opts.upstreams, timeoutMs: opts.upstreamTimeoutMs ?? 2000 });
  const server = new DNSServer({
    zone, resolver: new Resolver(zone, { pods, ttl }), forwarder, metrics, cache,
    synced: () => sources.hasSynced(), log: opts.log, udp: opts.udp,
  });
  informers.start();
  try {
    await server.listen(opts.listen);
  } catch (err) {
    if (ownFactory) await informers.stop();
    forwarder.close();
    await server.close();
    throw err;
  }
  opts.log.info('cluster DNS serving', { domain, listen: server.bound.udp, upstreams: opts.upstreams });
  return {
    server, zone, sources, informers, forwarder,
    ready: () => sources.hasSynced(),
    async stop() {
      await server.close();
      forwarder.close();
      if (ownFactory) await informers.stop();
    },
  };
}
