// Prometheus metrics, named after CoreDNS's (coredns_dns_requests_total and friends) with
// capstan's prefix.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const TYPES = new Set(['A', 'AAAA', 'SRV', 'PTR', 'CNAME', 'TXT', 'SOA', 'NS', 'MX', 'ANY']);
const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

export class DNSMetrics {
  readonly requests: Counter<'proto' | 'type'>;
  readonly responses: Counter<'rcode'>;
  readonly duration: Histogram<'proto'>;
  readonly forwards: Counter<'result'>;
  readonly malformed: Counter<'reason'>;
  readonly truncated: Counter;

  constructor(registry: Registry, cacheSize: () => number, zoneSize: () => number) {
    const registers = [registry];
    this.requests = new Counter({ name: 'capstan_dns_requests_total', help: 'DNS queries received, by transport and query type.', labelNames: ['proto', 'type'], registers });
    this.responses = new Counter({ name: 'capstan_dns_responses_total', help: 'DNS replies sent, by response code.', labelNames: ['rcode'], registers });
    this.duration = new Histogram({
      name: 'capstan_dns_request_duration_seconds', help: 'Time from a query arriving to its reply being handed to the socket.',
      labelNames: ['proto'], buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers,
    });
    this.forwards = new Counter({ name: 'capstan_dns_forward_requests_total', help: 'Queries sent upstream, by outcome.', labelNames: ['result'], registers });
    this.malformed = new Counter({ name: 'capstan_dns_malformed_requests_total', help: 'Queries dropped or answered FORMERR/NOTIMP, by reason.', labelNames: ['reason'], registers });
    this.truncated = new Counter({ name: 'capstan_dns_truncated_responses_total', help: 'Replies sent with the TC bit.', registers });
    new Gauge({ name: 'capstan_dns_cache_entries', help: 'Encoded replies in the response cache.', registers, collect() { this.set(cacheSize()); } });
    new Gauge({ name: 'capstan_dns_zone_records', help: 'Records the cluster zone holds.', registers, collect() { this.set(zoneSize()); } });
  }

  // Label children bound once: the per-query cost is then a counter bump, not a label hash.
  private requestChildren = new Map<string, { inc(): void }>();
  private responseChildren = new Map<number, { inc(): void }>();
  private durationChildren?: [{ observe(v: number): void }, { observe(v: number): void }];

  request(tcp: boolean, type: string): void {
    const key = `${tcp ? 'tcp' : 'udp'}/${DNSMetrics.typeLabel(type)}`;
    let c = this.requestChildren.get(key);
    if (!c) this.requestChildren.set(key, (c = this.requests.labels(tcp ? 'tcp' : 'udp', DNSMetrics.typeLabel(type))));
    c.inc();
  }

  response(rcode: number): void {
    let c = this.responseChildren.get(rcode);
    if (!c) this.responseChildren.set(rcode, (c = this.responses.labels(DNSMetrics.rcodeLabel(rcode))));
    c.inc();
  }

  observe(tcp: boolean, seconds: number): void {
    this.durationChildren ??= [this.duration.labels('udp'), this.duration.labels('tcp')];
    this.durationChildren[tcp ? 1 : 0].observe(seconds);
  }

  static typeLabel(t: string): string {
    return TYPES.has(t) ? t : 'other';
  }

  static rcodeLabel(code: number): string {
    return RCODE_NAMES[code] ?? String(code);
  }
}
