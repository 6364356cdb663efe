// One question → the answer from the Zone, or a verdict that it must be forwarded. Pure
// over the Zone's current state: no I/O, so every record type is unit-testable.
import { isIPv4, isIPv6 } from 'node:net';
import { inZone, isReverseName, undash } from './names.js';
import type { RR, Zone } from './zone.js';

export type Rcode = 'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'NOTIMP' | 'REFUSED';

export interface Resolution {
  rcode: Rcode;
  authoritative: boolean;
  answers: RR[];
  authorities: RR[];
  additionals: RR[];
  /** The name is not ours: ask the upstream resolvers. */
  forward?: boolean;
  /** The answer ends in a CNAME to a name outside the domain; its records come from upstream. */
  chase?: { name: string; type: string };
}

export interface ResolverOptions {
  /** `insecure`: any `a-b-c-d.<ns>.pod.<zone>` answers (what the specification requires); `verified`: only pods that exist. */
  pods: 'insecure' | 'verified' | 'disabled';
  ttl: number;
}

export const SCHEMA_VERSION = '1.0.1';

export class Resolver {
  constructor(private zone: Zone, private opts: ResolverOptions) {}

  /** `name` already normalized (lower case, no trailing dot). */
  resolve(name: string, type: string, klass: string): Resolution {
    const domain = this.zone.domain;
    const ours = inZone(name, domain);
    if (!ours && !isReverseName(name)) return forward();
    if (type === 'AXFR' || type === 'IXFR') return result(ours ? 'NOTIMP' : 'REFUSED', false);
    if (klass !== 'IN' && klass !== 'ANY') return result('REFUSED', false);

    let records = this.zone.lookup(name);
    if (ours) records = this.withSynthetic(name, records);
    else if (records.length === 0) return forward(); // reverse names we do not know: upstream's

    if (ours && records.length === 0 && !this.zone.exists(name) && name !== domain) {
      return { ...result('NXDOMAIN', true), authorities: [this.soa()] };
    }

    const cname = records.find((r) => r.type === 'CNAME');
    if (cname && type !== 'CNAME' && type !== 'ANY') return this.followCNAME(cname, type);

    const answers = type === 'ANY' ? records : records.filter((r) => r.type === type);
    if (answers.length === 0) return { ...result('NOERROR', true), authorities: ours ? [this.soa()] : [] };
    const additionals: RR[] = [];
    if (type === 'SRV' || type === 'NS') {
      const seen = new Set<string>();
      for (const r of answers) {
        const target = type === 'SRV' ? (r.data as { target: string }).target : (r.data as string);
        if (seen.has(target) || !inZone(target, domain)) continue;
        seen.add(target);
        for (const a of this.zone.lookup(target)) if (a.type === 'A' || a.type === 'AAAA') additionals.push(a);
      }
    }
    return { ...result('NOERROR', true), answers, additionals };
  }

  soa(): RR {
    const d = this.zone.domain;
    return {
      name: d, type: 'SOA', class: 'IN', ttl: this.opts.ttl,
      data: {
        mname: `ns.dns.${d}`, rname: `hostmaster.${d}`,
        serial: Math.floor(this.zone.lastChange / 1000) >>> 0,
        refresh: 7200, retry: 1800, expire: 86400, minimum: this.opts.ttl,
      },
    };
  }

  private withSynthetic(name: string, records: RR[]): RR[] {
    const d = this.zone.domain;
    if (name === d) return [this.soa(), ...records];
    if (name === `dns-version.${d}`) return [{ name, type: 'TXT', class: 'IN', ttl: this.opts.ttl, data: SCHEMA_VERSION }];
    if (this.opts.pods === 'insecure' && records.length === 0 && name.endsWith(`.pod.${d}`)) {
      const labels = name.slice(0, -(d.length + 5)).split('.');
      if (labels.length === 2) {
        const ip = undash(labels[0]);
        if (ip && isIPv4(ip)) return [{ name, type: 'A', class: 'IN', ttl: this.opts.ttl, data: ip }];
        if (ip && isIPv6(ip)) return [{ name, type: 'AAAA', class: 'IN', ttl: this.opts.ttl, data: ip }];
      }
    }
    return records;
  }

  private followCNAME(cname: RR, type: string): Resolution {
    const answers: RR[] = [cname];
    const seen = new Set<string>([cname.name]);
    let target = cname.data as string;
    // Chains inside the domain are followed here; a target outside it goes upstream.
    for (let i = 0; i < 8; i++) {
      if (!inZone(target, this.zone.domain)) return { ...result('NOERROR', true), answers, chase: { name: target, type } };
      if (seen.has(target)) break;
      seen.add(target);
      const next = this.zone.lookup(target);
      const c = next.find((r) => r.type === 'CNAME');
      if (!c) {
        answers.push(...next.filter((r) => r.type === type));
        break;
      }
      answers.push(c);
      target = c.data as string;
    }
    return { ...result('NOERROR', true), answers };
  }
}

function result(rcode: Rcode, authoritative: boolean): Resolution {
  return { rcode, authoritative, answers: [], authorities: [], additionals: [] };
}

function forward(): Resolution {
  return { ...result('NOERROR', false), forward: true };
}
