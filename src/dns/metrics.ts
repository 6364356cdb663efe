// Prometheus metrics, named after CoreDNS's (coredns_dns_requests_total and friends) with
// capstan's prefix. The per-query ones count into plain arrays and are folded into the
// registry when it is scraped: prom-client hashes a label set (a string) on every inc and
// observe, which at 100k queries/s was garbage and time on the hot path.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { NativeDnsStats } from './native-udp.js';

const TYPES = ['A', 'AAAA', 'SRV', 'PTR', 'CNAME', 'TXT', 'SOA', 'NS', 'MX', 'ANY', 'other'];
const TYPE_INDEX = new Map(TYPES.map((t, i) => [t, i]));
/** Query type numbers → index in TYPES (RFC 1035, 3596, 2782). */
const CODE_INDEX = new Map<number, number>([[1, 0], [28, 1], [33, 2], [12, 3], [5, 4], [16, 5], [6, 6], [2, 7], [15, 8], [255, 9]]);
const OTHER = TYPES.length - 1;
const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];
const PROTOS = ['udp', 'tcp'];
export const BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class DNSMetrics {
  readonly forwards: Counter<'result'>;
  readonly malformed: Counter<'reason'>;
  private requestCounts = new Float64Array(PROTOS.length * TYPES.length);
  private responseCounts = new Float64Array(16);
  private pending = { truncated: 0 };
  private readonly duration = new DurationHistogram('capstan_dns_request_duration_seconds', 'Time from a query arriving to its reply being handed to the socket.', () => this.pull());
  /** The addon's sockets, which count what they answer themselves (read at scrape time). */
  private readonly natives: { stats(): NativeDnsStats }[] = [];

  constructor(registry: Registry, cacheSize: () => number, zoneSize: () => number) {
    const registers = [registry];
    const requests = this.requestCounts, responses = this.responseCounts;
    const pull = () => this.pull();
    new Counter({
      name: 'capstan_dns_requests_total', help: 'DNS queries received, by transport and query type.', labelNames: ['proto', 'type'], registers,
      collect() { pull(); fold(requests, (i, n) => this.inc({ proto: PROTOS[Math.floor(i / TYPES.length)], type: TYPES[i % TYPES.length] }, n)); },
    });
    new Counter({
      name: 'capstan_dns_responses_total', help: 'DNS replies sent, by response code.', labelNames: ['rcode'], registers,
      collect() { pull(); fold(responses, (i, n) => this.inc({ rcode: RCODE_NAMES[i] ?? String(i) }, n)); },
    });
    const pending = this.pending;
    new Counter({
      name: 'capstan_dns_truncated_responses_total', help: 'Replies sent with the TC bit.', registers,
      collect() { pull(); if (pending.truncated > 0) { this.inc(pending.truncated); pending.truncated = 0; } },
    });
    registry.registerMetric(this.duration as unknown as Parameters<Registry['registerMetric']>[0]);
    this.forwards = new Counter({ name: 'capstan_dns_forward_requests_total', help: 'Queries sent upstream, by outcome.', labelNames: ['result'], registers });
    this.malformed = new Counter({ name: 'capstan_dns_malformed_requests_total', help: 'Queries dropped or answered FORMERR/NOTIMP, by reason.', labelNames: ['reason'], registers });
    new Gauge({ name: 'capstan_dns_cache_entries', help: 'Prebuilt replies held.', registers, collect() { this.set(cacheSize()); } });
    new Gauge({ name: 'capstan_dns_zone_records', help: 'Records the cluster zone holds.', registers, collect() { this.set(zoneSize()); } });
  }

  /** Counts what `socket` answers off the JS thread too (UDP), from its next stats() on. */
  addNative(socket: { stats(): NativeDnsStats }): void {
    this.natives.push(socket);
  }

  removeNative(socket: { stats(): NativeDnsStats }): void {
    this.pull();
    const i = this.natives.indexOf(socket);
    if (i >= 0) this.natives.splice(i, 1);
  }

  /** Folds the addon's counts (UDP queries it answered) into ours. */
  private pull(): void {
    for (const n of this.natives) {
      const s = n.stats();
      for (let t = 0; t < s.qtypes.length; t++) {
        if (s.qtypes[t] > 0) this.requestCounts[t < 256 ? (CODE_INDEX.get(t) ?? OTHER) : OTHER] += s.qtypes[t];
      }
      for (let r = 0; r < s.rcodes.length; r++) this.responseCounts[r] += s.rcodes[r];
      this.pending.truncated += s.truncated;
      this.duration.add(0, s.buckets, s.sum);
    }
  }

  /** A query of `type` (dns-packet's name for it). */
  request(tcp: boolean, type: string): void {
    this.requestCounts[(tcp ? TYPES.length : 0) + (TYPE_INDEX.get(type) ?? OTHER)]++;
  }

  /** A query of type number `qtype` (the prebuilt path, which never decodes it). */
  requestCode(tcp: boolean, qtype: number): void {
    this.requestCounts[(tcp ? TYPES.length : 0) + (CODE_INDEX.get(qtype) ?? OTHER)]++;
  }

  /** A reply sent: its header rcode, TC bit and the time since the query arrived. */
  reply(tcp: boolean, rcode: number, truncated: boolean, seconds: number): void {
    this.responseCounts[rcode & 0xf]++;
    if (truncated) this.pending.truncated++;
    this.duration.observe(tcp ? 1 : 0, seconds);
  }

  /** Time for a query that got no reply. */
  observe(tcp: boolean, seconds: number): void {
    this.duration.observe(tcp ? 1 : 0, seconds);
  }

  static typeLabel(t: string): string {
    return TYPE_INDEX.has(t) ? t : 'other';
  }

  static rcodeLabel(code: number): string {
    return RCODE_NAMES[code] ?? String(code);
  }
}

function fold(counts: Float64Array, inc: (i: number, n: number) => void): void {
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] > 0) {
      inc(i, counts[i]);
      counts[i] = 0;
    }
  }
}

interface Sample { labels: Record<string, string | number>; value: number; metricName: string }

/** A histogram by `proto` kept in typed arrays; prom-client's registry reads it through get(). */
class DurationHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames = ['proto'];
  private counts = PROTOS.map(() => new Float64Array(BUCKETS.length + 1));
  private sums = new Float64Array(PROTOS.length);

  constructor(readonly name: string, readonly help: string, private beforeRead: () => void) {}

  /** Counts per bucket (BUCKETS, then +Inf) and their sum, observed elsewhere. */
  add(proto: number, counts: Float64Array, sum: number): void {
    const c = this.counts[proto];
    for (let i = 0; i < c.length && i < counts.length; i++) c[i] += counts[i];
    this.sums[proto] += sum;
  }

  observe(proto: number, v: number): void {
    let i = 0;
    while (i < BUCKETS.length && v > BUCKETS[i]) i++;
    this.counts[proto][i]++;
    this.sums[proto] += v;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    this.beforeRead();
    const values: Sample[] = [];
    for (let p = 0; p < PROTOS.length; p++) {
      const c = this.counts[p];
      let cum = 0;
      for (let i = 0; i < c.length; i++) cum += c[i];
      if (cum === 0) continue;
      const total = cum;
      cum = 0;
      for (let i = 0; i < BUCKETS.length; i++) {
        cum += c[i];
        values.push({ labels: { le: BUCKETS[i], proto: PROTOS[p] }, value: cum, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: '+Inf', proto: PROTOS[p] }, value: total, metricName: `${this.name}_bucket` });
      values.push({ labels: { proto: PROTOS[p] }, value: this.sums[p], metricName: `${this.name}_sum` });
      values.push({ labels: { proto: PROTOS[p] }, value: total, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    for (const c of this.counts) c.fill(0);
    this.sums.fill(0);
  }
}
